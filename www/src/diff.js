// Field-level differences between two versions of a document (relaxed Extended
// JSON values, as the engine hands them over), and a mongosh-style one-line
// printer for the values in them.

const MAX_DEPTH = 100; // documents nest at most 100 levels in MongoDB; past that, compare whole
const MAX_CHANGES = 200; // changed fields listed per document

const IDENT = /^[A-Za-z_$][\w$]*$/;

/** A relaxed-EJSON scalar wrapper (`{$oid: …}`, `{$date: …}`…) as mongosh prints it, or null. */
export function wrapperText(v) {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return null;
  const keys = Object.keys(v);
  if (keys.length === 0 || keys.length > 2 || !keys[0].startsWith('$')) return null;
  const [k] = keys;
  if (k === '$oid') return `ObjectId('${v.$oid}')`;
  if (k === '$date') return `ISODate('${typeof v.$date === 'string' ? v.$date : v.$date.$numberLong ?? JSON.stringify(v.$date)}')`;
  if (k === '$numberLong') return `Long('${v.$numberLong}')`;
  if (k === '$numberDecimal') return `Decimal128('${v.$numberDecimal}')`;
  if (k === '$numberDouble') return v.$numberDouble;
  if (k === '$numberInt') return v.$numberInt;
  if (k === '$timestamp') return `Timestamp({ t: ${v.$timestamp.t}, i: ${v.$timestamp.i} })`;
  if (k === '$binary') return `Binary.createFromBase64('${v.$binary.base64}', ${parseInt(v.$binary.subType, 16)})`;
  if (k === '$regularExpression') return `/${v.$regularExpression.pattern}/${v.$regularExpression.options}`;
  if (k === '$minKey') return 'MinKey()';
  if (k === '$maxKey') return 'MaxKey()';
  if (k === '$undefined') return 'undefined';
  if (k === '$symbol') return `Symbol('${v.$symbol}')`;
  if (k === '$code' && keys.length === 1) return `Code('${v.$code}')`;
  return null;
}

function quote(s) {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
}

/** One value on one line, as mongosh prints it (`{ a: 1, b: 'x' }`). */
export function shellInline(v, depth = 0) {
  if (v === null) return 'null';
  if (typeof v === 'string') return quote(v);
  if (typeof v !== 'object') return String(v);
  const w = wrapperText(v);
  if (w !== null) return w;
  if (depth > MAX_DEPTH) return '…';
  if (Array.isArray(v)) return v.length ? `[ ${v.map((x) => shellInline(x, depth + 1)).join(', ')} ]` : '[]';
  const entries = Object.entries(v);
  if (!entries.length) return '{}';
  return `{ ${entries.map(([k, x]) => `${IDENT.test(k) ? k : quote(k)}: ${shellInline(x, depth + 1)}`).join(', ')} }`;
}

const isDoc = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && wrapperText(v) === null;
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const join = (path, key) => (path ? `${path}.${key}` : String(key));

/**
 * The fields that differ between `before` and `after`, as dotted paths (array
 * elements by position): `[{path, kind: 'changed'|'added'|'removed', before?, after?}]`.
 * Sub-documents and arrays are compared field by field; a change of type
 * (a document became an array) is one change of the whole value.
 */
export function fieldChanges(before, after) {
  const out = [];
  walk(before, after, '', 0, out);
  return out;
}

function walk(a, b, path, depth, out) {
  if (out.length >= MAX_CHANGES) return;
  if (same(a, b)) return;
  const bothDocs = isDoc(a) && isDoc(b);
  const bothArrays = Array.isArray(a) && Array.isArray(b);
  if (depth >= MAX_DEPTH || (!bothDocs && !bothArrays)) {
    out.push({ path, kind: 'changed', before: a, after: b });
    return;
  }
  if (bothArrays) {
    const n = Math.max(a.length, b.length);
    for (let i = 0; i < n && out.length < MAX_CHANGES; i++) {
      if (i >= b.length) out.push({ path: join(path, i), kind: 'removed', before: a[i] });
      else if (i >= a.length) out.push({ path: join(path, i), kind: 'added', after: b[i] });
      else walk(a[i], b[i], join(path, i), depth + 1, out);
    }
    return;
  }
  for (const [k, v] of Object.entries(a)) {
    if (out.length >= MAX_CHANGES) return;
    if (!Object.hasOwn(b, k)) out.push({ path: join(path, k), kind: 'removed', before: v });
    else walk(v, b[k], join(path, k), depth + 1, out);
  }
  for (const [k, v] of Object.entries(b)) {
    if (out.length >= MAX_CHANGES) return;
    if (!Object.hasOwn(a, k)) out.push({ path: join(path, k), kind: 'added', after: v });
  }
}

export const DIFF_LIMIT = MAX_CHANGES;
