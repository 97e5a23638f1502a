// How the engine, as the ACP client, answers an agent's session/request_permission: the configuration's
// policy. A registry (policy → decision), so a new policy is one entry and its words live beside it.
//   allow     every request: the agent's allow_once option
//   deny      every request: its reject_once option
//   ask-once  per ACP tool kind (read, edit, execute, fetch, …; `other` when the agent names none): the
//             first request of a kind is allowed once, every later request of that kind is rejected; a
//             user who approves the first edit and refuses to keep approving. Never an *_always option,
//             so the agent never stores a standing rule the next request would skip the client for.

export const PERMISSION_POLICIES = ['allow', 'deny', 'ask-once'] as const;
export type PermissionPolicy = (typeof PERMISSION_POLICIES)[number];

/** One option the agent offers (ACP PermissionOption). */
export interface PermissionOption {
  optionId: string;
  name?: string;
  kind: string;
}

export interface PermissionDecision {
  allow: boolean;
  /** The option chosen; undefined: none fits, the request is answered `cancelled`. */
  optionId?: string;
  /** The option kind chosen (allow_once, reject_once, …) or `cancelled`, for the record. */
  answer: string;
}

/** Per-session memory of the kinds already allowed (ask-once). */
export type PolicyState = Set<string>;

const DECIDE: Record<PermissionPolicy, (kind: string, seen: PolicyState) => boolean> = {
  allow: () => true,
  deny: () => false,
  'ask-once': (kind, seen) => {
    if (seen.has(kind)) return false;
    seen.add(kind);
    return true;
  },
};

/** Preference among the agent's options: the once-options first; *_always only when nothing else fits. */
const PREFER = { allow: ['allow_once', 'allow_always'], reject: ['reject_once', 'reject_always'] };

/** The answer to one permission request under `policy`, for a tool call of ACP kind `kind`. */
export function decidePermission(
  policy: PermissionPolicy,
  kind: string,
  options: PermissionOption[],
  seen: PolicyState,
): PermissionDecision {
  const allow = DECIDE[policy](kind, seen);
  for (const want of allow ? PREFER.allow : PREFER.reject) {
    const o = options.find((x) => x.kind === want);
    if (o) return { allow, optionId: o.optionId, answer: want };
  }
  // No option of the side the policy chose: a refusal is `cancelled` (never an allow it did not choose);
  // an allow the agent offers no option for cannot be given either.
  return { allow: false, answer: 'cancelled' };
}
