"""titles.json: titles."""

from __future__ import annotations

from .build import VectorFile, abort, d, end, fin, pe, ps, start, titles_out

FILE = VectorFile("titles", "Titles only from stable sources, never from streaming fragments.")
case = FILE.case

case("mp-title-no-fragment-while-streaming", ["MP-040", "MP-039"],
     "A reasoning summary still streaming half a word has no title: the fragment never "
     "takes it.",
     [start(), ps("r1", "reasoning_summary"), d("r1", "Let me chec")],
     titles=titles_out(("t1", "r1", None)))

case("mp-title-stable-summary-while-streaming", ["MP-039", "MP-040"],
     "A stable process summary supplied by the runtime is the title while the text streams.",
     [start(), ps("r1", "reasoning_summary", summary="Checking the arithmetic"),
      d("r1", "Six ti")],
     titles=titles_out(("t1", "r1", "Checking the arithmetic")))

case("mp-title-tool-name-not-input-fragment", ["MP-039", "MP-040"],
     "A tool call streaming its input is titled by the tool name, never by the input "
     "fragment.",
     [start(), ps("c1", "tool_call", name="web_search"), d("c1", '{"query": "weath')],
     titles=titles_out(("t1", "c1", "web_search")))

case("mp-title-complete-reasoning-summary", ["MP-039"],
     "Once complete, a reasoning summary's full text is its title.",
     [start(), ps("r1", "reasoning_summary"), d("r1", "Compared two "), d("r1", "sources."),
      pe("r1")],
     titles=titles_out(("t1", "r1", "Compared two sources.")),
     # a complete reasoning summary is one of MP-039's stable title sources
     checks={"titles": {"outcome": "MP-039", "output": "MP-039"}})

case("mp-title-order-of-stable-sources", ["MP-D009"],
     "Suite decision: a supplied summary (tool input summary) wins over the tool name; a "
     "tool result takes its call's name; a hidden reasoning_detail has no title.",
     [start(), ps("c1", "tool_call", name="web_search"), d("c1", '{"query": "oslo"}'),
      pe("c1", summary="oslo weather"), ps("res1", "tool_result", call="c1"),
      d("res1", "{}"), pe("res1"), ps("rd1", "reasoning_detail", summary="private"),
      ps("r1", "reasoning_summary", summary="Weighing sources"), d("r1", "A vs B"), pe("r1")],
     titles=titles_out(("t1", "c1", "oslo weather"), ("t1", "res1", "web_search"),
                       ("t1", "rd1", None), ("t1", "r1", "Weighing sources")))

case("mp-title-aborted-reasoning-fragment", ["MP-040", "MP-039"],
     "A reasoning summary aborted half-way through a word has no title: the fragment it "
     "left is never a title, only a complete reasoning summary is.",
     [start(), ps("r1", "reasoning_summary"), d("r1", "Checking the cac"), abort()],
     titles=titles_out(("t1", "r1", None)))


case("mp-title-shown-reasoning-detail-text", ["MP-039"],
     "A finished reasoning_detail that policy and user allow to show has no title of its "
     "own: its text is not a stable title source (only a complete reasoning summary is).",
     [start(), ps("rd1", "reasoning_detail"), d("rd1", "Step 1: 6 x 7"),
      fin("rd1", "Step 1: 6 x 7 = 42."), end()],
     view={"reasoning_detail": {"policy": True, "user": True}},
     titles=titles_out(("t1", "rd1", None)))


case("mp-title-hidden-reasoning-detail-text", ["MP-039", "MP-D009"],
     "A finished reasoning_detail hidden by the user's setting has no title either: its "
     "text never becomes one.",
     [start(), ps("rd1", "reasoning_detail"), d("rd1", "Step 1: 6 x 7"),
      fin("rd1", "Step 1: 6 x 7 = 42."), end()],
     view={"reasoning_detail": {"policy": True, "user": False}},
     titles=titles_out(("t1", "rd1", None)),
     # a title taken from the hidden detail's text is no stable source: MP-039
     checks={"titles": {"outcome": "MP-039", "output": "MP-039"}})
