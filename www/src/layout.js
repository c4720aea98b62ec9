// Resizable panes: the gutters between the three columns are drag handles
// (pointer) and sliders (arrow keys). Sizes persist in localStorage.
const KEY = 'mqlplay.layout.v1';
const MIN = 0.12;

export function setupLayout(main) {
  let sizes = [0.3, 0.32, 0.38];
  try {
    const saved = JSON.parse(localStorage.getItem(KEY));
    if (Array.isArray(saved) && saved.length === 3 && saved.every((x) => typeof x === 'number' && x >= MIN)) sizes = saved;
  } catch { /* no saved layout */ }

  const apply = () => {
    main.style.setProperty('--col-a', `${sizes[0]}fr`);
    main.style.setProperty('--col-b', `${sizes[1]}fr`);
    main.style.setProperty('--col-c', `${sizes[2]}fr`);
    for (const g of main.querySelectorAll('.gutter')) {
      const i = Number(g.dataset.index);
      g.setAttribute('aria-valuenow', String(Math.round(sizes[i] * 100)));
    }
  };
  const save = () => localStorage.setItem(KEY, JSON.stringify(sizes));

  // Move the border after pane i by `delta` (a fraction of the width).
  const move = (i, delta) => {
    const pair = sizes[i] + sizes[i + 1];
    const a = Math.min(pair - MIN, Math.max(MIN, sizes[i] + delta));
    sizes[i] = a;
    sizes[i + 1] = pair - a;
    apply();
  };

  for (const g of main.querySelectorAll('.gutter')) {
    const i = Number(g.dataset.index);
    g.setAttribute('aria-valuemin', '0');
    g.setAttribute('aria-valuemax', '100');
    g.addEventListener('pointerdown', (e) => {
      e.preventDefault();
      g.setPointerCapture(e.pointerId);
      const width = main.getBoundingClientRect().width;
      let x = e.clientX;
      g.classList.add('dragging');
      const onMove = (ev) => {
        move(i, (ev.clientX - x) / width);
        x = ev.clientX;
      };
      const onUp = () => {
        g.classList.remove('dragging');
        g.removeEventListener('pointermove', onMove);
        g.removeEventListener('pointerup', onUp);
        g.removeEventListener('pointercancel', onUp);
        save();
      };
      g.addEventListener('pointermove', onMove);
      g.addEventListener('pointerup', onUp);
      g.addEventListener('pointercancel', onUp);
    });
    g.addEventListener('keydown', (e) => {
      const step = e.shiftKey ? 0.1 : 0.02;
      if (e.key === 'ArrowLeft') move(i, -step);
      else if (e.key === 'ArrowRight') move(i, step);
      else return;
      e.preventDefault();
      save();
    });
    g.addEventListener('dblclick', () => { sizes = [0.3, 0.32, 0.38]; apply(); save(); });
  }
  apply();
}
