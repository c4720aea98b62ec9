// The Templates menu: its items (names and comments in the page's language) and
// its keyboard and pointer handling. The templates themselves are in templates.js.
import { TEMPLATES, withComments } from './templates.js';
import { t, raw } from './i18n.js';

const templateName = (tpl) => t(`template.${tpl.id}`);
/** A template's pane with its comments in the page's language (keys `template.<id>.<pane>.<n>`). */
const templateText = (tpl, pane) => withComments(tpl[pane], (n) => {
  const key = `template.${tpl.id}.${pane}.${n}`;
  return raw(key) === key ? null : raw(key);
});

/** Fill and wire the menu; `onPick(db, script)` gets the chosen template's texts. */
export function setupTemplates(onPick) {
  const button = document.getElementById('templates');
  const menu = document.getElementById('templates-menu');
  for (const tpl of TEMPLATES) {
    const li = document.createElement('li');
    li.setAttribute('role', 'none');
    const item = document.createElement('button');
    item.type = 'button';
    item.setAttribute('role', 'menuitem');
    item.dataset.template = tpl.id;
    item.textContent = templateName(tpl);
    item.addEventListener('click', () => {
      close();
      onPick(templateText(tpl, 'db'), templateText(tpl, 'script'));
    });
    li.append(item);
    menu.append(li);
  }
  const items = () => [...menu.querySelectorAll('[role=menuitem]')];
  const open = () => {
    menu.hidden = false;
    button.setAttribute('aria-expanded', 'true');
    items()[0].focus();
  };
  const close = (refocus = true) => {
    if (menu.hidden) return;
    menu.hidden = true;
    button.setAttribute('aria-expanded', 'false');
    if (refocus) button.focus();
  };
  button.addEventListener('click', () => (menu.hidden ? open() : close()));
  menu.addEventListener('keydown', (e) => {
    const list = items();
    const i = list.indexOf(document.activeElement);
    if (e.key === 'ArrowDown') list[(i + 1) % list.length].focus();
    else if (e.key === 'ArrowUp') list[(i - 1 + list.length) % list.length].focus();
    else if (e.key === 'Home') list[0].focus();
    else if (e.key === 'End') list[list.length - 1].focus();
    else if (e.key === 'Escape') close();
    else if (e.key === 'Tab') close(false);
    else return;
    e.preventDefault();
  });
  document.addEventListener('pointerdown', (e) => {
    if (!menu.hidden && !menu.contains(e.target) && e.target !== button) close(false);
  });
}

/** After a change of language: rename the menu's items. */
export function relabelTemplates() {
  for (const item of document.querySelectorAll('[data-template]')) {
    const tpl = TEMPLATES.find((x) => x.id === item.dataset.template);
    if (tpl) item.textContent = templateName(tpl);
  }
}
