// Builds the single-file versions of the package into dist/:
//   bayeux.mjs      one ES module, for bundlers and <script type="module">
//   bayeux.js       a classic script defining the global `Bayeux`, for a plain <script> tag
//   bayeux.min.js   the same, minified
// The ES modules in src/ are the package itself; these files are made from them and never edited.

import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let build;
try {
  ({ build } = await import('esbuild'));
} catch {
  console.error('bayeux-js-client: the devDependencies are not installed: run `npm ci` in bayeux-js-client '
    + '(bin/bayeux test does it for you)');
  process.exit(1);
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const banner = `/*! bayeux-js-client ${version} | Apache-2.0 */`;
mkdirSync(join(root, 'dist'), { recursive: true });

const common = {
  entryPoints: [join(root, 'src', 'index.js')],
  bundle: true,
  target: ['es2020'],
  banner: { js: banner },
  legalComments: 'none',
  logLevel: 'warning',
};

await Promise.all([
  build({ ...common, format: 'esm', outfile: join(root, 'dist', 'bayeux.mjs') }),
  build({ ...common, format: 'iife', globalName: 'Bayeux', outfile: join(root, 'dist', 'bayeux.js') }),
  build({ ...common, format: 'iife', globalName: 'Bayeux', minify: true, outfile: join(root, 'dist', 'bayeux.min.js') }),
]);
console.log('dist/: bayeux.mjs, bayeux.js, bayeux.min.js');
