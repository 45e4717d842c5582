/** Keys that work on every page (the `?` overlay lists them after the page's own). */
export const NAVIGATION_KEYS: Array<[string, string]> = [
  ['j/k  ↓/↑', 'down / up'],
  ['g/G  Home/End', 'top / bottom'],
  ['Ctrl-F/B  PgDn/PgUp', 'page down / up'],
];

export const GLOBAL_KEYS: Array<[string, string]> = [
  ['1…9, 0', 'views: dashboard, backends, tools, resources, sessions, events, skills, registry, servers, plugins'],
  [':', 'command: a view name (Tab completes), reload, help, quit'],
  ['/', 'filter this page (Esc clears)'],
  ['Esc', 'clear the filter, else back'],
  ['?', 'this help'],
  ['ctrl+r', 'reload the gateway configuration (asks first)'],
  ['q / Ctrl-C', 'quit'],
];
