import { defineConfig } from 'vite';

// Preact's automatic JSX runtime through esbuild; no Babel preset needed.
export default defineConfig({
  base: './',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    assetsDir: 'assets',
  },
});
