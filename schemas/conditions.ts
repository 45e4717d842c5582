/**
 * Backend condition types and every reason each can carry: the one list that
 * the reconciler writes, phase.ts reads and docs/controller.md documents
 * (checked by a test). A reason is a typed constant, so a typo does not
 * compile instead of silently changing a phase.
 */

/**
 * `Ready` and `HealthCheckFailed` for every backend (spec 2.2); `ImageReady`
 * and `ContainerRunning` for stdio backends that run in a container (or, with
 * reason `BareProcess`, say why one does not); `Authenticated` for OAuth backends.
 */
export const CONDITION_TYPES = ['Ready', 'HealthCheckFailed', 'ImageReady', 'ContainerRunning', 'Authenticated'] as const;
export type ConditionType = (typeof CONDITION_TYPES)[number];

/** Why a stdio backend could not get its container (runtime/containers/errors.ts); shown by `ImageReady` and `Ready`. */
export const CONTAINER_FAILURES = [
  'RuntimeUnavailable',
  'BaseImageUnavailable',
  'ImageUnavailable',
  'ImageBuildFailed',
  'ContainerCreateFailed',
  'ContainerStartFailed',
] as const;
export type ContainerFailure = (typeof CONTAINER_FAILURES)[number];

export const CONDITION_REASONS = {
  Ready: [
    'Pending',
    'Connecting',
    'BuildingImage',
    'Connected',
    'Degraded',
    'ConnectFailed',
    'ConnectionLost',
    'AuthorizationRequired',
    'Disconnected',
    'Disabled',
    'NameConflict',
    ...CONTAINER_FAILURES,
  ],
  HealthCheckFailed: ['NotChecked', 'HealthCheckPassed', 'SlowResponse', 'PingFailed'],
  ImageReady: ['Preparing', 'Built', 'Present', ...CONTAINER_FAILURES],
  ContainerRunning: ['Running', 'Exited', 'Stopped', 'BareProcess'],
  Authenticated: ['Authorized', 'AuthorizationRequired', 'InsufficientScope'],
} as const satisfies Record<ConditionType, readonly string[]>;

export type ReasonOf<T extends ConditionType> = (typeof CONDITION_REASONS)[T][number];
export type ReadyReason = ReasonOf<'Ready'>;

/** A condition as written: its type decides which reasons it may carry. */
export type ConditionUpdate = {
  [T in ConditionType]: { type: T; status: boolean; reason: ReasonOf<T>; message: string };
}[ConditionType];
