/**
 * Who hears of a new route table, declared once, in order. The route table
 * is rebuilt when a backend's catalog, its phase, the pins or desired state
 * change (runtime/backends/serving-backends.ts emits `routes`); these are
 * all that follow it.
 */
import type { GatewayController } from '../controller/gateway-controller.js';
import type { RoutesChange } from '../runtime/backends/serving-backends.js';
import type { ToolOptimizer } from '../runtime/optimizer/tool-optimizer.js';
import type { ClientFanout } from '../runtime/routing/client-fanout.js';
import type { ResourceSubscriptions } from '../runtime/routing/resource-subscriptions.js';
import type { RouteTable } from '../runtime/routing/route-table.js';

export interface RouteListeners {
  controller: Pick<GatewayController, 'routesChanged'>;
  optimizer: Pick<ToolOptimizer, 'routesChanged' | 'visibleChanges'>;
  fanout: Pick<ClientFanout, 'listsChanged'>;
  subscriptions: Pick<ResourceSubscriptions, 'resync'>;
}

export interface RoutesSource {
  on(event: 'routes', listener: (table: RouteTable, change: RoutesChange) => void): unknown;
}

export function followRoutes(serving: RoutesSource, l: RouteListeners): void {
  serving.on('routes', (table, change) => {
    // 1. The controller: backends whose conflict verdict changed are reconciled again; hidden capabilities are reported.
    l.controller.routesChanged(table, change);
    // 2. Tool search: its index follows the catalog (debounced).
    l.optimizer.routesChanged();
    // 3. Clients: told of the lists they see change (with the optimizer on, the tool list only when a kept tool changed).
    l.fanout.listsChanged(l.optimizer.visibleChanges(change.lists, table));
    // 4. Resource subscriptions follow their resources' owners.
    void l.subscriptions.resync();
  });
}
