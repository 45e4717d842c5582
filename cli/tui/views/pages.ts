/** Every page kind and the spec that draws it and handles its keys. */
import type { PageSpec } from '../page-spec.js';
import type { PageKind } from '../ui-state.js';
import { dashboardPage } from './dashboard-view.js';
import { backendsPage } from './backends-view.js';
import { backendPage } from './backend-page.js';
import { backendLogPage } from './backend-log-page.js';
import { toolsPage } from './tools-view.js';
import { toolPage } from './tool-page.js';
import { resourcesPage } from './resources-view.js';
import { resourcePage } from './resource-page.js';
import { promptPage } from './prompt-page.js';
import { sessionsPage } from './sessions-view.js';
import { eventsPage } from './events-view.js';
import { eventPage } from './event-page.js';
import { skillsPage } from './skills-view.js';
import { registryPage } from './registry-view.js';
import { registryEntryPage } from './registry-entry-page.js';
import { serversPage } from './servers-view.js';
import { pluginsPage } from './plugins-view.js';

export const PAGES: Record<PageKind, PageSpec> = {
  dashboard: dashboardPage,
  backends: backendsPage,
  backend: backendPage,
  'backend-log': backendLogPage,
  tools: toolsPage,
  tool: toolPage,
  resources: resourcesPage,
  resource: resourcePage,
  prompt: promptPage,
  sessions: sessionsPage,
  events: eventsPage,
  event: eventPage,
  skills: skillsPage,
  registry: registryPage,
  'registry-entry': registryEntryPage,
  servers: serversPage,
  plugins: pluginsPage,
};
