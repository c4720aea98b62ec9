// A menu button's keys and pointer (WAI-ARIA's menu button pattern), shared by the
// Templates and Tutorials menus: arrows, Home and End move among the items, Escape
// closes and gives the focus back to the button, Tab and a press outside close.

/** The menu's items, in order. */
export const menuItems = (menu) => [...menu.querySelectorAll('[role=menuitem]')];

/** Hide `menu`; `refocus`: give the focus back to its button. */
export function closeMenu(button, menu, refocus = true) {
  if (menu.hidden) return;
  menu.hidden = true;
  button.setAttribute('aria-expanded', 'false');
  if (refocus) button.focus();
}

/** The button opens (`open()`) and closes (`close(refocus)`) the menu; the keys move and close. */
export function wireMenu(button, menu, open, close) {
  button.addEventListener('click', () => (menu.hidden ? open() : close()));
  menu.addEventListener('keydown', (e) => {
    const list = menuItems(menu);
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
    if (!menu.hidden && !menu.contains(e.target) && !button.contains(e.target)) close(false);
  });
}
