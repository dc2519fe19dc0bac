#!/usr/bin/env node
// In-process check of what the adapter protocol cannot observe (BO-008, "without changing
// Session records"): the serializers never modify their input. Every vector input of the
// block-omission and in-history-update families is deep-frozen before it is serialized, so any
// write to it throws (this file and serialize.js are strict mode); the input must also be
// unchanged afterwards, a rejection must carry the expected code, and every output must be frozen.
//
//   node examples/js-adapter/check-no-mutation.js [VECTORS_DIR]   (default: ../../vectors)
//
// Exit 0 when every case holds, 1 otherwise. Output comparison is the runner's job
// (agent-tck run --impl ...), not this script's.

'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { SerializeError, serializeAnthropic, serializeOpenAI } = require('./serialize.js');

const OPERATIONS = { 'anthropic.serialize': serializeAnthropic, 'openai.serialize': serializeOpenAI };
const FAMILIES = ['block-omission', 'in-history-update'];

function deepFreeze(value) {
  if (value !== null && typeof value === 'object') {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze(value[key]);
  }
  return value;
}

function isDeepFrozen(value) {
  if (value === null || typeof value !== 'object') return true;
  return Object.isFrozen(value) && Object.keys(value).every((key) => isDeepFrozen(value[key]));
}

function checkCase(testCase, operation, expectation) {
  const before = JSON.stringify(testCase.input);
  const input = deepFreeze(JSON.parse(before));
  let output;
  let code = null;
  try {
    output = OPERATIONS[operation](input);
  } catch (error) {
    if (!(error instanceof SerializeError)) return `threw ${error && error.stack}`;
    code = error.code;
  }
  if (JSON.stringify(input) !== before) return 'the input changed';
  if ('alternatives' in expectation) {
    // accepted outcomes (vectors/README.md "Accepted alternatives"): any error code listed, or
    // an output when one is listed (compared by the runner, not here)
    const codes = expectation.alternatives.filter((a) => 'error' in a).map((a) => a.error.code);
    if (code !== null) return codes.includes(code) ? null : `rejected with ${code}, not an accepted code`;
    if (!expectation.alternatives.some((a) => 'output' in a)) return 'expected a rejection, got an output';
    return isDeepFrozen(output) ? null : 'the output is not frozen';
  }
  if ('error' in expectation) {
    return code === expectation.error.code ? null : `expected ${expectation.error.code}, got ${code ?? 'an output'}`;
  }
  if (code !== null) return `expected an output, got ${code}`;
  return isDeepFrozen(output) ? null : 'the output is not frozen';
}

function main() {
  const root = path.resolve(process.argv[2] || path.join(__dirname, '..', '..', 'vectors'));
  let checked = 0;
  const problems = [];
  for (const family of FAMILIES) {
    const dir = path.join(root, family);
    for (const name of fs.readdirSync(dir).filter((n) => n.endsWith('.json')).sort()) {
      const file = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8'));
      for (const testCase of file.cases) {
        for (const [operation, expectation] of Object.entries(testCase.expect)) {
          if (!(operation in OPERATIONS)) continue;
          checked += 1;
          const problem = checkCase(testCase, operation, expectation);
          if (problem !== null) problems.push(`${family}/${name} ${testCase.id} [${operation}]: ${problem}`);
        }
      }
    }
  }
  for (const problem of problems) process.stderr.write(`FAIL ${problem}\n`);
  process.stdout.write(`${checked - problems.length}/${checked} cases: input never modified, output frozen\n`);
  process.exitCode = checked > 0 && problems.length === 0 ? 0 : 1;
}

main();
