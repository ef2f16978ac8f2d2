import { describe, expect, it } from 'vitest';
import { htmlToMarkdown } from './html-to-markdown.js';

describe('htmlToMarkdown', () => {
  it('writes ATX headings, links, emphasis, bullets and fenced code', async () => {
    const markdown = await htmlToMarkdown(
      `<h2>Title</h2><p>See <a href="http://x/y">the docs</a>, <b>now</b>.</p>
       <ul><li>one</li><li>two</li></ul>
       <pre><code class="language-js">const x = 1;</code></pre>`,
    );
    expect(markdown).toBe(
      '## Title\n\nSee [the docs](http://x/y), **now**.\n\n-   one\n-   two\n\n```js\nconst x = 1;\n```',
    );
  });

  it('writes tables as pipe tables with a header line, escaping pipes', async () => {
    const markdown = await htmlToMarkdown(
      `<table><caption>Prices</caption>
         <tr><th>Item</th><th>Price | USD</th></tr>
         <tr><td>Apple <b>red</b></td><td>$1</td></tr>
         <tr><td><p>Pear</p><p>green</p></td><td>$2</td></tr>
       </table>`,
    );
    expect(markdown).toBe(
      'Prices\n\n| Item | Price \\| USD |\n| --- | --- |\n| Apple **red** | $1 |\n| Pear green | $2 |',
    );
  });

  it('drops scripts, styles, form fields and embedded content', async () => {
    const markdown = await htmlToMarkdown(
      `<p>kept</p><script>alert(1)</script><style>p {}</style><select><option>opt</option></select>
       <textarea>typed</textarea><iframe src="x"></iframe><p>also kept</p>`,
    );
    expect(markdown).toBe('kept\n\nalso kept');
  });
});
