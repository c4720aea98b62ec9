// The Templates menu: its items (names and comments in the page's language) and
// opening it (its keys: menu.js). The templates themselves are in templates.js.
import { TEMPLATES, withComments } from './templates.js';
import { t, raw } from './i18n.js';
import { menuItems, closeMenu, wireMenu } from './menu.js';

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
  const open = () => {
    menu.hidden = false;
    button.setAttribute('aria-expanded', 'true');
    menuItems(menu)[0].focus();
  };
  const close = (refocus = true) => closeMenu(button, menu, refocus);
  wireMenu(button, menu, open, close);
}

/** After a change of language: rename the menu's items. */
export function relabelTemplates() {
  for (const item of document.querySelectorAll('[data-template]')) {
    const tpl = TEMPLATES.find((x) => x.id === item.dataset.template);
    if (tpl) item.textContent = templateName(tpl);
  }
}
