/* The strict JSON reader's native check (reference_impl/strict_json.py, loads): whether a value
 * msgspec decoded from a text can be returned as the strict reading of that text.
 *
 * msgspec refuses NaN, Infinity, numbers out of range, lone surrogates, invalid UTF-8 and
 * trailing data itself. What it cannot see, this reads in one pass over the text and one walk
 * of the value, with no allocation:
 *   - a duplicate key: msgspec keeps the last of two, so the value holds fewer pairs than the
 *     text has ':' outside its strings (in valid JSON each such ':' is a pair's);
 *   - nesting deeper than max_depth: the brackets outside strings;
 *   - an integer of more than max_digits digits: a longer run of digits (a long fraction or
 *     exponent, or digits in a string, may be taken for one too; the stdlib path then decides,
 *     which is only slower).
 * It never refuses: False means "cannot vouch", and the stdlib path decides and words the
 * refusal. The text is read 64 bytes at a time with SSE2 or AVX2 where the CPU has them (asked
 * at import), else a byte at a time (vouch_bytewise: the tests run both). Built by
 * hatch_build.py; strict_json.py falls back to its Python checks without it.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* What a byte outside a string means to the scan; 0 for the rest (blanks, commas, literals). */
enum { PLAIN, QUOTE, COLON, OPEN, CLOSE, DIGIT };
static unsigned char kind[256];

#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL
#define SPACES 0x2020202020202020ULL
#define QUOTES 0x2222222222222222ULL

static inline uint64_t
word(const unsigned char *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

/* The lowest set bit marks the first zero byte of w (higher bits may be false). Byte order:
   the first byte is the lowest on little-endian machines, the only ones the words are read on. */
static inline uint64_t
zero_bytes(uint64_t w)
{
    return (w - ONES) & ~w & HIGHS;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define WORDS 1
#else
#define WORDS 0
#endif

/* The first '"' from p: eight bytes at a time through a short string (a key), memchr past. */
static inline const unsigned char *
next_quote(const unsigned char *p, const unsigned char *end)
{
    if (WORDS) {
        Py_ssize_t words = (end - p) / 8;
        for (words = words > 8 ? 8 : words; words > 0; words--, p += 8) {
            uint64_t found = zero_bytes(word(p) ^ QUOTES);
            if (found)
                return p + (__builtin_ctzll(found) >> 3);
        }
    }
    return p < end ? memchr(p, '"', (size_t)(end - p)) : NULL;
}

/* 1 when the text passes: *colons is then its ':' count outside strings. */
static int
scan(const unsigned char *p, Py_ssize_t n, Py_ssize_t max_depth, Py_ssize_t max_digits,
     Py_ssize_t *colons)
{
    const unsigned char *end = p + n;
    Py_ssize_t depth = 0, count = 0;
    while (p < end) {
        switch (kind[*p]) {
        case PLAIN:
            /* blanks, commas and literals; a pretty-printed text's indentation eight spaces at
               a time */
            do {
                p++;
                while (WORDS && end - p >= 8) {
                    uint64_t other = word(p) ^ SPACES;
                    if (other) {
                        p += __builtin_ctzll(other) >> 3;
                        break;
                    }
                    p += 8;
                }
            } while (p < end && kind[*p] == PLAIN);
            break;
        case QUOTE: {
            /* the closing quote: the first one after an even run of backslashes */
            const unsigned char *start = ++p;
            for (;;) {
                const unsigned char *q = next_quote(p, end);
                if (q == NULL)
                    return 0; /* not after msgspec accepted the text */
                const unsigned char *b = q;
                while (b > start && b[-1] == '\\')
                    b--;
                p = q + 1;
                if (((q - b) & 1) == 0)
                    break;
            }
            break;
        }
        case COLON:
            count++;
            p++;
            break;
        case OPEN:
            if (++depth > max_depth)
                return 0;
            p++;
            break;
        case CLOSE:
            depth--;
            p++;
            break;
        default: { /* DIGIT: a number's run of digits (its integer, fraction or exponent part) */
            const unsigned char *first = p++;
            while (p < end && kind[*p] == DIGIT)
                p++;
            if (p - first > max_digits)
                return 0;
            break;
        }
        }
    }
    *colons = count;
    return 1;
}

#if defined(__SSE2__)
#include <immintrin.h>
#define BLOCKS 1
static int have_popcnt, have_avx2;

/* Bit i of each mask: byte i of a 64-byte block is that character (open: '[' or '{', close:
   ']' or '}'); all_digits: every byte of the block is one of '0'-'9'. */
typedef struct {
    uint64_t quote, backslash, colon, open, close;
    int all_digits;
} Masks;

static inline uint64_t
bits(__m128i matches, int shift)
{
    return (uint64_t)(uint32_t)_mm_movemask_epi8(matches) << shift;
}

__attribute__((target("avx2"))) static inline uint64_t
wide_bits(__m256i matches, int shift)
{
    return (uint64_t)(uint32_t)_mm256_movemask_epi8(matches) << shift;
}

static inline void
classify_sse2(const unsigned char *p, Masks *m)
{
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
    const __m128i colon = _mm_set1_epi8(':'), open = _mm_set1_epi8('{');
    const __m128i close = _mm_set1_epi8('}'), case_bit = _mm_set1_epi8(0x20);
    const __m128i below = _mm_set1_epi8('0' - 1), above = _mm_set1_epi8('9' + 1);
    __m128i digits = _mm_set1_epi8(-1);
    m->quote = m->backslash = m->colon = m->open = m->close = 0;
    for (int i = 0; i < 64; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(p + i));
        /* '[' | 0x20 is '{' and ']' | 0x20 is '}'; no other byte becomes either */
        __m128i folded = _mm_or_si128(v, case_bit);
        m->quote |= bits(_mm_cmpeq_epi8(v, quote), i);
        m->backslash |= bits(_mm_cmpeq_epi8(v, backslash), i);
        m->colon |= bits(_mm_cmpeq_epi8(v, colon), i);
        m->open |= bits(_mm_cmpeq_epi8(folded, open), i);
        m->close |= bits(_mm_cmpeq_epi8(folded, close), i);
        /* signed compares: bytes from 0x80 are negative, never digits */
        digits = _mm_and_si128(digits, _mm_and_si128(_mm_cmpgt_epi8(v, below),
                                                     _mm_cmplt_epi8(v, above)));
    }
    m->all_digits = _mm_movemask_epi8(digits) == 0xFFFF;
}

/* classify_sse2 32 bytes at a time, where the CPU has AVX2 (asked at import). */
__attribute__((target("avx2"))) static inline void
classify_avx2(const unsigned char *p, Masks *m)
{
    const __m256i quote = _mm256_set1_epi8('"'), backslash = _mm256_set1_epi8('\\');
    const __m256i colon = _mm256_set1_epi8(':'), open = _mm256_set1_epi8('{');
    const __m256i close = _mm256_set1_epi8('}'), case_bit = _mm256_set1_epi8(0x20);
    const __m256i below = _mm256_set1_epi8('0' - 1), above = _mm256_set1_epi8('9' + 1);
    __m256i digits = _mm256_set1_epi8(-1);
    m->quote = m->backslash = m->colon = m->open = m->close = 0;
    for (int i = 0; i < 64; i += 32) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(p + i));
        __m256i folded = _mm256_or_si256(v, case_bit);
        m->quote |= wide_bits(_mm256_cmpeq_epi8(v, quote), i);
        m->backslash |= wide_bits(_mm256_cmpeq_epi8(v, backslash), i);
        m->colon |= wide_bits(_mm256_cmpeq_epi8(v, colon), i);
        m->open |= wide_bits(_mm256_cmpeq_epi8(folded, open), i);
        m->close |= wide_bits(_mm256_cmpeq_epi8(folded, close), i);
        digits = _mm256_and_si256(digits, _mm256_and_si256(_mm256_cmpgt_epi8(v, below),
                                                           _mm256_cmpgt_epi8(above, v)));
    }
    m->all_digits = (uint32_t)_mm256_movemask_epi8(digits) == 0xFFFFFFFFu;
}

/* Bit i set: an odd number of the bits 0..i of x are set. */
static inline uint64_t
prefix_xor(uint64_t x)
{
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

/* scan(), 64 bytes at a time: masks of the block's characters, the escaped bytes found from its
   backslashes, the bytes inside strings from its unescaped quotes (a quote's own bit counts as
   inside when it opens a string, outside when it closes one). Digits more coarsely: a run of
   more than max_digits digits covers at least `whole` consecutive blocks of digits only, so
   fewer such blocks in a row vouch for the text (more: the stdlib path decides, inside a string
   too). Built for a CPU with POPCNT (every x86-64 CPU since 2008), asked at import. */
static inline __attribute__((always_inline)) int
scan_blocks(const unsigned char *p, Py_ssize_t n, Py_ssize_t max_depth, Py_ssize_t max_digits,
            Py_ssize_t *colons, void (*classify)(const unsigned char *, Masks *))
{
    const unsigned char *end = p + n;
    uint64_t inside_before = 0;  /* all ones when the previous block ended inside a string */
    uint64_t escape_carry = 0;   /* 1 when its last byte was a backslash escaping this first one */
    Py_ssize_t depth = 0, count = 0, run = 0;
    const Py_ssize_t whole = (max_digits + 1 - 2 * 63) / 64;
    unsigned char last[64];
    while (p < end) {
        Masks m;
        if (end - p >= 64) {
            classify(p, &m);
            p += 64;
        }
        else { /* the tail, zero-padded: a zero byte is none of the characters */
            memset(last, 0, sizeof last);
            memcpy(last, p, (size_t)(end - p));
            classify(last, &m);
            p = end;
        }
        uint64_t escaped = escape_carry;
        escape_carry = 0;
        uint64_t backslashes = m.backslash & ~escaped; /* an escaped backslash escapes nothing */
        while (backslashes) {
            uint64_t bit = backslashes & (0 - backslashes);
            if (bit >> 63) {
                escape_carry = 1;
                break;
            }
            escaped |= bit << 1;
            backslashes &= ~(bit | bit << 1);
        }
        uint64_t inside = prefix_xor(m.quote & ~escaped) ^ inside_before;
        inside_before = (uint64_t)((int64_t)inside >> 63);
        uint64_t outside = ~inside;
        count += __builtin_popcountll(m.colon & outside);
        uint64_t opens = m.open & outside, closes = m.close & outside;
        if (opens | closes) {
            Py_ssize_t added = __builtin_popcountll(opens);
            if (depth + added <= max_depth) {
                depth += added - __builtin_popcountll(closes);
            }
            else { /* deep enough to matter: each bracket in its order */
                for (uint64_t both = opens | closes; both; both &= both - 1) {
                    if (opens & both & (0 - both)) {
                        if (++depth > max_depth)
                            return 0;
                    }
                    else {
                        depth--;
                    }
                }
            }
        }
        if (!m.all_digits)
            run = 0;
        else if (++run >= whole)
            return 0;
    }
    *colons = count;
    return 1;
}

__attribute__((target("popcnt"))) static int
scan_sse2(const unsigned char *p, Py_ssize_t n, Py_ssize_t max_depth, Py_ssize_t max_digits,
          Py_ssize_t *colons)
{
    return scan_blocks(p, n, max_depth, max_digits, colons, classify_sse2);
}

__attribute__((target("avx2,popcnt"))) static int
scan_avx2(const unsigned char *p, Py_ssize_t n, Py_ssize_t max_depth, Py_ssize_t max_digits,
          Py_ssize_t *colons)
{
    return scan_blocks(p, n, max_depth, max_digits, colons, classify_avx2);
}
#else
#define BLOCKS 0
#endif

/* How the text is read: the best the CPU has (what vouch uses), or one way (for the tests). */
enum { BEST, BYTEWISE, SSE2, AVX2 };

static int
scan_text(const unsigned char *p, Py_ssize_t n, Py_ssize_t max_depth, Py_ssize_t max_digits,
          Py_ssize_t *colons, int reader)
{
#if BLOCKS
    if (reader == BEST)
        reader = !have_popcnt ? BYTEWISE : have_avx2 ? AVX2 : SSE2;
    if (max_digits >= 3 * 64 && reader != BYTEWISE)
        return (reader == AVX2 ? scan_avx2 : scan_sse2)(p, n, max_depth, max_digits, colons);
#else
    (void)reader;
#endif
    return scan(p, n, max_depth, max_digits, colons);
}

/* The pairs of every dict in a decoded value: each container's own traversal (what the garbage
   collector and gc.get_referents call: a list's items, a dict's values, and its keys where they
   are not all strings) hands its containers on, and each dict adds its size. */
static int
count_pairs(PyObject *item, void *pairs)
{
    if (PyDict_CheckExact(item)) {
        *(Py_ssize_t *)pairs += PyDict_GET_SIZE(item);
        return Py_TYPE(item)->tp_traverse(item, count_pairs, pairs);
    }
    if (PyList_CheckExact(item))
        return Py_TYPE(item)->tp_traverse(item, count_pairs, pairs);
    return 0;
}

static PyObject *
check(PyObject *const *args, Py_ssize_t nargs, int reader)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "vouch(text, value, max_depth, max_digits)");
        return NULL;
    }
    Py_ssize_t max_depth = PyLong_AsSsize_t(args[2]);
    Py_ssize_t max_digits = PyLong_AsSsize_t(args[3]);
    if ((max_depth == -1 || max_digits == -1) && PyErr_Occurred())
        return NULL;
    Py_ssize_t colons = 0;
    int passes;
    if (PyUnicode_Check(args[0])) {
        Py_ssize_t n;
        const char *text = PyUnicode_AsUTF8AndSize(args[0], &n); /* msgspec's cached UTF-8 */
        if (text == NULL) {
            PyErr_Clear();
            Py_RETURN_FALSE;
        }
        passes = scan_text((const unsigned char *)text, n, max_depth, max_digits, &colons,
                           reader);
    }
    else {
        Py_buffer view;
        if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) != 0)
            return NULL;
        passes = scan_text((const unsigned char *)view.buf, view.len, max_depth, max_digits,
                           &colons, reader);
        PyBuffer_Release(&view);
    }
    if (!passes)
        Py_RETURN_FALSE;
    PyObject *value = args[1];
    /* a scalar has no pair; a container nests no deeper than the text's brackets, which the
       scan held to max_depth, so the walk's recursion is bounded */
    if (!(PyDict_CheckExact(value) || PyList_CheckExact(value)))
        return PyBool_FromLong(colons == 0);
    Py_ssize_t pairs = 0;
    count_pairs(value, &pairs);
    return PyBool_FromLong(pairs == colons);
}

/* vouch(text, value, max_depth, max_digits) -> bool */
static PyObject *
vouch(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    return check(args, nargs, BEST);
}

/* vouch_as(way, text, value, max_depth, max_digits): the text read one way (for the tests). */
static PyObject *
vouch_as(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 5 || !PyUnicode_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "vouch_as(way, text, value, max_depth, max_digits)");
        return NULL;
    }
    const char *way = PyUnicode_AsUTF8(args[0]);
    if (way == NULL)
        return NULL;
    int reader = strcmp(way, "bytewise") == 0 ? BYTEWISE : strcmp(way, "sse2") == 0 ? SSE2
                 : strcmp(way, "avx2") == 0 ? AVX2 : -1;
#if BLOCKS
    if (reader == AVX2 && !(have_avx2 && have_popcnt))
        reader = -1;
    if (reader == SSE2 && !have_popcnt)
        reader = -1;
#else
    if (reader != BYTEWISE)
        reader = -1;
#endif
    if (reader < 0) {
        PyErr_Format(PyExc_ValueError, "this CPU or build cannot read %s", way);
        return NULL;
    }
    return check(args + 1, nargs - 1, reader);
}

static PyMethodDef methods[] = {
    {"vouch", (PyCFunction)(void (*)(void))vouch, METH_FASTCALL,
     "vouch(text, value, max_depth, max_digits) -> bool: whether the value msgspec decoded from\n"
     "text kept every pair, nests at most max_depth levels and holds no run of more than\n"
     "max_digits digits outside a string."},
    {"vouch_as", (PyCFunction)(void (*)(void))vouch_as, METH_FASTCALL,
     "vouch_as(way, text, value, max_depth, max_digits): vouch() reading the text one way,\n"
     "'avx2', 'sse2' or 'bytewise' (ValueError where the CPU or build cannot)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_strict_scan", NULL, 0, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC
PyInit__strict_scan(void)
{
    kind['"'] = QUOTE;
    kind[':'] = COLON;
    kind['['] = kind['{'] = OPEN;
    kind[']'] = kind['}'] = CLOSE;
    for (int c = '0'; c <= '9'; c++)
        kind[c] = DIGIT;
#if BLOCKS
    __builtin_cpu_init();
    have_popcnt = __builtin_cpu_supports("popcnt");
    have_avx2 = __builtin_cpu_supports("avx2");
#endif
    return PyModule_Create(&module_def);
}
