#!/usr/bin/env node
// agent-tck adapter, protocol version 1.1 (vectors/PROTOCOL.md), for the serializers in
// serialize.js. This file only moves data: one JSON command per line on stdin, one JSON reply
// per line on stdout, logs on stderr. Run it with
//
//   agent-tck run --impl 'node examples/js-adapter/adapter.js' --family block-omission --family in-history-update

'use strict';

const readline = require('node:readline');
const { SerializeError, serializeAnthropic, serializeOpenAI } = require('./serialize.js');

const PROTOCOL = 1;
// Protocol 1.1: on request, run an operation twice on the same in-memory input and report the
// second result and the input as it stands after both calls (how BO-008 is observed).
const OBSERVE = Object.freeze(['input-after', 'repeat']);

const IMPLEMENTATION = Object.freeze({
  name: 'agent-tck-js-example',
  version: '0.1.0',
  language: 'javascript',
});

// Operation name -> function(input) returning the output, or throwing SerializeError.
const OPERATIONS = Object.freeze({
  'anthropic.serialize': serializeAnthropic,
  'openai.serialize': serializeOpenAI,
});

function log(...parts) {
  process.stderr.write(`[js-adapter] ${parts.join(' ')}\n`);
}

function reply(message) {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

function crashed(seq, error) {
  const traceback = String((error && error.stack) || error).split('\n');
  return { seq, crashed: { message: String((error && error.message) || error), traceback } };
}

// One call -> the body of a reply: {output}, {error} or {crashed}.
function callOnce(fn, input, command) {
  try {
    return { output: fn(input) };
  } catch (error) {
    if (error instanceof SerializeError) {
      return { error: { code: error.code, message: error.message, pointer: error.pointer } };
    }
    log(`case ${command.case}: unexpected exception:`, (error && error.stack) || error);
    return crashed(command.seq, error);
  }
}

// One `run` command -> its reply (output, error or crashed). Pure apart from logging.
function runCommand(command) {
  const { seq, operation } = command;
  const fn = OPERATIONS[operation];
  if (fn === undefined) {
    return { seq, crashed: { message: `operation ${JSON.stringify(operation)} was not declared by this adapter` } };
  }
  const input = command.input; // parsed once: both calls get this very object
  const first = callOnce(fn, input, command);
  if (!Array.isArray(command.observe) || command.observe.length === 0 || 'crashed' in first) {
    return { seq, ...first };
  }
  const second = callOnce(fn, input, command);
  if ('crashed' in second) return { seq, ...second };
  // stringified by reply() only now, after both calls: shared arrays show what became of them
  return { seq, ...first, observed: { repeat: second, input_after: input } };
}

function main() {
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
  let started = false;

  lines.on('line', (line) => {
    if (line.trim() === '') return;
    let command;
    try {
      command = JSON.parse(line);
    } catch (error) {
      log(`ignoring a line that is not JSON: ${error.message}`);
      return;
    }

    switch (command && command.cmd) {
      case 'start':
        if (command.protocol !== PROTOCOL) {
          log(`the runner speaks protocol ${command.protocol}; this adapter speaks ${PROTOCOL}`);
          process.exitCode = 2;
          lines.close();
          return;
        }
        started = true;
        reply({
          protocol: PROTOCOL,
          implementation: IMPLEMENTATION,
          operations: Object.keys(OPERATIONS).sort(),
          observe: OBSERVE,
        });
        return;
      case 'run':
        if (!started) log('warning: "run" before "start"');
        reply(runCommand(command));
        return;
      case 'stop':
        lines.close();
        return;
      default:
        log(`ignoring an unknown command: ${line.slice(0, 200)}`);
        if (command && Number.isInteger(command.seq)) {
          reply({ seq: command.seq, crashed: { message: `unknown command ${JSON.stringify(command.cmd)}` } });
        }
    }
  });

  // On `stop` or end of input: stop reading so the process can exit once stdout has drained.
  lines.on('close', () => {
    process.stdin.pause();
  });
}

main();
