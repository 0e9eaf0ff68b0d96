import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writePretty } from '../../src/cli/format.js';
import { parseJson } from '../../src/rpc/json-read.js';

const pretty = (text: string) => writePretty(parseJson(text));

// UniValue::write(2) (univalue_write.cpp at 0adeeab), worked by hand from the source.
test('UniValue write(2): nesting, key spacing, number text', () => {
  assert.equal(
    pretty('{"a":1,"b":[true,null,"x"],"c":{"d":1.00000000}}'),
    '{\n  "a": 1,\n  "b": [\n    true,\n    null,\n    "x"\n  ],\n  "c": {\n    "d": 1.00000000\n  }\n}',
  );
  assert.equal(pretty('["h1","h2"]'), '[\n  "h1",\n  "h2"\n]');
  assert.equal(pretty('[[1,[2]]]'), '[\n  [\n    1,\n    [\n      2\n    ]\n  ]\n]');
  assert.equal(pretty('12'), '12');
  assert.equal(pretty('-0.50000000'), '-0.50000000');
  assert.equal(pretty('true'), 'true');
});

test('UniValue write(2): empty containers still break the line', () => {
  assert.equal(pretty('[]'), '[\n]');
  assert.equal(pretty('{}'), '{\n}');
  assert.equal(pretty('{"a":[],"b":{}}'), '{\n  "a": [\n  ],\n  "b": {\n  }\n}');
  assert.equal(pretty('[[],{}]'), '[\n  [\n  ],\n  {\n  }\n]');
});

test('UniValue write(2): strings escaped as json_escape does, duplicates kept', () => {
  assert.equal(pretty('{"k\\"":"a\\u0001\\n\\u007f/é"}'), '{\n  "k\\"": "a\\u0001\\n\\u007f/é"\n}');
  assert.equal(pretty('{"a":1,"a":2}'), '{\n  "a": 1,\n  "a": 2\n}');
});
