/**
 * The console's build (`npm run build`): console/ → dist/console/, served by
 * the gateway at /console (api/console/). Hashed file names under assets/
 * (cached for a year by the gateway), no inline script or style (the page
 * runs under a strict Content-Security-Policy), no module-preload polyfill
 * (it would be inline), and a brotli and a gzip copy of every file beside it.
 */
import { defineConfig } from 'vite';
import { compressAssets } from './compress-assets.js';

export default defineConfig({
  root: import.meta.dirname,
  base: '/console/',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: '../dist/console',
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2022',
    modulePreload: { polyfill: false },
    // Nothing is inlined as a data: URL: every file is served, hashed and compressed.
    assetsInlineLimit: 0,
    reportCompressedSize: false,
    sourcemap: false,
  },
  plugins: [compressAssets()],
});
