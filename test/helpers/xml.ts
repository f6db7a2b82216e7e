/**
 * A strict reader of the XML subset wafctl writes (JUnit reports): an optional declaration, then one
 * element tree of elements, attributes and text — no comments, CDATA, DTD or processing instructions.
 * It throws on anything not well-formed XML 1.0 (a character XML does not allow, an unescaped `<` or
 * `&`, an unknown entity, a duplicate attribute, a tag left open or closed out of order, text outside
 * the root), and gives the tree with entities decoded, so tests can assert on the document's shape.
 * No XML parser is a dependency of the project; this one is small enough to be read in full.
 */

export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  /** The element's own text (entities decoded), its children's left out. */
  text: string;
}

const NAME = /^[A-Za-z_][\w.-]*/;
const ALLOWED = /^[\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]*$/u;
const ENTITY: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Text or an attribute's value, with its entity and character references decoded. */
function decode(raw: string, where: string): string {
  if (raw.includes('<')) throw new Error(`unescaped < in ${where}`);
  if (raw.includes(']]>')) throw new Error(`]]> in ${where}`);
  return raw.replace(/&([^;]*);|&/g, (whole, body: string | undefined) => {
    if (body === undefined) throw new Error(`bare & in ${where}`);
    if (body in ENTITY) return ENTITY[body] ?? '';
    const code = /^#x([0-9a-fA-F]+)$/.exec(body)?.[1] ?? /^#(\d+)$/.exec(body)?.[1];
    if (code === undefined) throw new Error(`unknown entity ${whole} in ${where}`);
    const value = String.fromCodePoint(Number.parseInt(code, body.startsWith('#x') ? 16 : 10));
    if (!ALLOWED.test(value)) throw new Error(`reference ${whole} to a character XML does not allow`);
    return value;
  });
}

class Reader {
  at = 0;
  constructor(readonly text: string) {}

  fail(what: string): never {
    throw new Error(
      `${what} at offset ${this.at}: ${JSON.stringify(this.text.slice(this.at, this.at + 30))}`,
    );
  }

  skipSpace(): void {
    while (/[ \t\r\n]/.test(this.text[this.at] ?? '')) this.at++;
  }

  name(): string {
    const name = NAME.exec(this.text.slice(this.at))?.[0];
    if (name === undefined) this.fail('expected a name');
    this.at += name.length;
    return name;
  }

  attributes(): Record<string, string> {
    const attributes: Record<string, string> = {};
    for (;;) {
      const before = this.at;
      this.skipSpace();
      const next = this.text[this.at];
      if (next === '>' || next === '/') return attributes;
      if (this.at === before) this.fail('expected a space before an attribute');
      const name = this.name();
      if (name in attributes) this.fail(`duplicate attribute ${name}`);
      if (this.text[this.at] !== '=') this.fail('expected =');
      const quote = this.text[++this.at];
      if (quote !== '"' && quote !== "'") this.fail('expected a quoted value');
      const end = this.text.indexOf(quote, this.at + 1);
      if (end === -1) this.fail('unterminated attribute value');
      attributes[name] = decode(this.text.slice(this.at + 1, end), `attribute ${name}`);
      this.at = end + 1;
    }
  }

  element(): XmlElement {
    if (this.text[this.at] !== '<') this.fail('expected <');
    this.at++;
    const name = this.name();
    const element: XmlElement = { name, attributes: this.attributes(), children: [], text: '' };
    if (this.text.startsWith('/>', this.at)) {
      this.at += 2;
      return element;
    }
    this.at++; // '>'
    for (;;) {
      const next = this.text.indexOf('<', this.at);
      if (next === -1) this.fail(`<${name}> is never closed`);
      element.text += decode(this.text.slice(this.at, next), `the text of <${name}>`);
      this.at = next;
      if (this.text.startsWith('</', this.at)) {
        this.at += 2;
        const closing = this.name();
        if (closing !== name) this.fail(`</${closing}> closes <${name}>`);
        this.skipSpace();
        if (this.text[this.at] !== '>') this.fail('expected >');
        this.at++;
        return element;
      }
      element.children.push(this.element());
    }
  }
}

/** The root element of `text`, which must be a well-formed XML document (see above). */
export function parseXml(text: string): XmlElement {
  if (!ALLOWED.test(text)) throw new Error('the document holds a character XML does not allow');
  const reader = new Reader(text);
  const declaration = /^<\?xml version="1\.0" encoding="UTF-8"\?>/.exec(text);
  if (declaration !== null) reader.at = declaration[0].length;
  reader.skipSpace();
  const root = reader.element();
  reader.skipSpace();
  if (reader.at !== text.length) reader.fail('content after the root element');
  return root;
}
