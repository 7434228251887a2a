// The package as users get it: the declarations cover every export, and the single-file builds expose the same API.

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runInNewContext } from 'node:vm';

import * as api from '../../src/index.js';
import { PACKAGE_DIR } from '../helpers/server.js';

const exported = Object.keys(api).sort();

describe('the package', () => {
  it('declares a type for every export', () => {
    const declarations = readFileSync(join(PACKAGE_DIR, 'types', 'index.d.ts'), 'utf8');
    const declared = [...declarations.matchAll(/^export declare (?:const|class|function) (\w+)/gm)].map((m) => m[1]).sort();
    assert.deepEqual(declared, exported);
  });

  it('gives each class at run time the methods its declaration lists, and BayeuxClient no others', () => {
    const declarations = readFileSync(join(PACKAGE_DIR, 'types', 'index.d.ts'), 'utf8');
    for (const [, name, body] of declarations.matchAll(/^export declare class (\w+)[^{]*\{\n([\s\S]*?)^\}/gm)) {
      const declared = [...body.matchAll(/^ {2}(\w+)(?:<[^>]*>)?\(/gm)].map((m) => m[1])
        .filter((m) => m !== 'constructor').sort();
      const prototype = api[name].prototype;
      for (const method of declared) {
        assert.equal(typeof prototype[method], 'function', `${name}.${method} is declared but missing`);
      }
      if (name === 'BayeuxClient') {
        // Its parts (context, session, message path) are fields, never methods: the prototype is the public API.
        const actual = Object.getOwnPropertyNames(prototype).filter((m) => m !== 'constructor').sort();
        assert.deepEqual(actual, declared);
      }
    }
  });

  it('has no runtime dependencies', () => {
    const manifest = JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8'));
    assert.equal(manifest.dependencies, undefined);
  });

  it('builds a classic script that defines the global Bayeux', { skip: !existsSync(join(PACKAGE_DIR, 'dist')) && 'run npm run build' }, () => {
    for (const file of ['bayeux.js', 'bayeux.min.js']) {
      const context = {};
      runInNewContext(readFileSync(join(PACKAGE_DIR, 'dist', file), 'utf8'), context);
      assert.deepEqual(Object.keys(context.Bayeux).sort(), exported, file);
      const client = new context.Bayeux.BayeuxClient('http://127.0.0.1:9/bayeux');
      assert.equal(client.getStatus(), 'disconnected');
    }
  });

  it('builds a single ES module with the same exports', { skip: !existsSync(join(PACKAGE_DIR, 'dist')) && 'run npm run build' }, async () => {
    const bundled = await import(join(PACKAGE_DIR, 'dist', 'bayeux.mjs'));
    assert.deepEqual(Object.keys(bundled).sort(), exported);
  });

  it('builds a CommonJS module with the same exports, and declarations for every build', { skip: !existsSync(join(PACKAGE_DIR, 'dist')) && 'run npm run build' }, () => {
    const required = createRequire(import.meta.url)(join(PACKAGE_DIR, 'dist', 'bayeux.cjs'));
    assert.deepEqual(Object.keys(required).sort(), exported);
    const declarations = readFileSync(join(PACKAGE_DIR, 'types', 'index.d.ts'), 'utf8');
    for (const copy of ['bayeux.d.mts', 'bayeux.d.cts']) {
      assert.ok(readFileSync(join(PACKAGE_DIR, 'dist', copy), 'utf8').endsWith(declarations), copy);
    }
    assert.match(readFileSync(join(PACKAGE_DIR, 'dist', 'bayeux.d.ts'), 'utf8'),
      /declare global \{\n {2}const Bayeux: typeof import\('\.\/bayeux\.mjs'\);/);
  });
});
