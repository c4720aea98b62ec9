// Writes src/tzdb/names.tsv: for every zone of src/tzdb/tzdata.bin, the two
// names V8 prints in a date's toString() ("GMT+0100 (Central European
// Standard Time)"): the standard and the daylight name. V8 asks ICU once per
// zone (TimeZone::getDisplayName(isDST, LONG, en-US) at the current date), so a
// zone has one pair whatever the year; a zone without an English name gets
// ICU's "GMT+01:00" form. Run with Node built with full ICU:
//   node tools/tz_names.mjs > src/tzdb/names.tsv
// Lines: zone, standard name, daylight name ("-" when the zone never showed one
// between 1970 and 2037, when it is the standard one).
import { readFileSync } from 'node:fs';

const data = readFileSync(new URL('../src/tzdb/tzdata.bin', import.meta.url));
let pos = 5;
const uvar = () => {
  let n = 0; let shift = 0;
  for (;;) {
    const b = data[pos++];
    n += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) return n;
    shift += 7;
  }
};
if (data.subarray(0, 5).toString() !== 'TZDB2') throw new Error('not TZDB2');
uvar(); // start of the offsets stream
const count = uvar();
uvar(); // zones
const zones = [];
for (let i = 0; i < count; i++) {
  const len = uvar();
  zones.push(data.subarray(pos, pos + len).toString());
  pos += len;
  uvar();
}

const nameOf = (d) => /\((.*)\)$/.exec(d.toString())?.[1];
const offsetOf = (d) => -d.getTimezoneOffset();
console.log('# zone\tstandard name\tdaylight name (written by tools/tz_names.mjs from Node ' +
  `${process.version}, ICU ${process.versions.icu}, tz ${process.versions.tz})`);
for (const zone of zones) {
  process.env.TZ = zone;
  // The standard name: now, or the one at the lower offset of this year's January and July.
  const jan = new Date(Date.UTC(2026, 0, 15, 12));
  const jul = new Date(Date.UTC(2026, 6, 15, 12));
  const std = offsetOf(jul) < offsetOf(jan) ? nameOf(jul) : nameOf(jan);
  let dst = offsetOf(jul) === offsetOf(jan) ? null : (offsetOf(jul) > offsetOf(jan) ? nameOf(jul) : nameOf(jan));
  for (let y = 1970; y <= 2037 && !dst; y++) {
    for (let m = 0; m < 12 && !dst; m++) {
      const name = nameOf(new Date(Date.UTC(y, m, 15, 12)));
      if (name !== std) dst = name;
    }
  }
  console.log(`${zone}\t${std}\t${dst && dst !== std ? dst : '-'}`);
}
