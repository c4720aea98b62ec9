// A tiny, safe Markdown subset for tutorial texts: paragraphs, `- ` and `1. `
// lists, `code` and **bold**. Text is parsed into a small tree and rendered
// with DOM nodes and text nodes only (never innerHTML), so a tutorial file can
// never inject markup.

/** Split a text (string or array of lines) into blocks: {type:'p'|'ul'|'ol', ...}. */
export function parseBlocks(text) {
  const lines = (Array.isArray(text) ? text.join('\n') : String(text ?? '')).split('\n');
  const blocks = [];
  let para = null;
  let list = null;
  const endPara = () => { para = null; };
  const endList = () => { list = null; };
  for (const raw of lines) {
    const line = raw.trim();
    if (line === '') { endPara(); endList(); continue; }
    const bullet = /^[-*]\s+(.*)$/.exec(line);
    const numbered = /^\d+[.)]\s+(.*)$/.exec(line);
    const item = bullet || numbered;
    if (item) {
      const type = bullet ? 'ul' : 'ol';
      endPara();
      if (!list || list.type !== type) {
        list = { type, items: [] };
        blocks.push(list);
      }
      list.items.push(parseInline(item[1]));
      continue;
    }
    if (list) {
      // A line right after an item continues it.
      const i = list.items.length - 1;
      list.items[i] = list.items[i].concat([{ type: 'text', text: ' ' }], parseInline(line));
      continue;
    }
    if (para) {
      para.inlines = para.inlines.concat([{ type: 'text', text: ' ' }], parseInline(line));
    } else {
      para = { type: 'p', inlines: parseInline(line) };
      blocks.push(para);
    }
  }
  return blocks;
}

/** Inline spans: text, `code`, **strong** (which may hold code). Unclosed markers stay literal. */
export function parseInline(s, inStrong = false) {
  const out = [];
  let text = '';
  const flush = () => { if (text) { out.push({ type: 'text', text }); text = ''; } };
  let i = 0;
  while (i < s.length) {
    if (s[i] === '`') {
      const end = s.indexOf('`', i + 1);
      if (end > i + 1) {
        flush();
        out.push({ type: 'code', text: s.slice(i + 1, end) });
        i = end + 1;
        continue;
      }
    } else if (!inStrong && s.startsWith('**', i)) {
      const end = s.indexOf('**', i + 2);
      if (end > i + 2) {
        flush();
        out.push({ type: 'strong', children: parseInline(s.slice(i + 2, end), true) });
        i = end + 2;
        continue;
      }
    }
    text += s[i];
    i += 1;
  }
  flush();
  return out;
}

function appendInline(parent, inlines) {
  const doc = parent.ownerDocument;
  for (const n of inlines) {
    if (n.type === 'text') parent.append(doc.createTextNode(n.text));
    else if (n.type === 'code') {
      const c = doc.createElement('code');
      c.textContent = n.text;
      parent.append(c);
    } else if (n.type === 'strong') {
      const b = doc.createElement('strong');
      appendInline(b, n.children);
      parent.append(b);
    }
  }
}

/** Render inline Markdown (a title) into `parent`, replacing its content. */
export function renderInline(parent, text) {
  parent.replaceChildren();
  appendInline(parent, parseInline(String(text ?? '')));
}

/** Render block Markdown into `parent`, replacing its content. */
export function renderMarkdown(parent, text) {
  const doc = parent.ownerDocument;
  parent.replaceChildren();
  for (const b of parseBlocks(text)) {
    if (b.type === 'p') {
      const p = doc.createElement('p');
      appendInline(p, b.inlines);
      parent.append(p);
    } else {
      const list = doc.createElement(b.type);
      for (const item of b.items) {
        const li = doc.createElement('li');
        appendInline(li, item);
        list.append(li);
      }
      parent.append(list);
    }
  }
}
