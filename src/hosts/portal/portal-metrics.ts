import { Counter, type Registry } from 'prom-client';

export type SignInMethod = 'password' | 'passkey';
export type SignInResult = 'success' | 'failure' | 'throttled';
const SIGN_IN_METHODS: readonly SignInMethod[] = ['password', 'passkey'];
const SIGN_IN_RESULTS: readonly SignInResult[] = ['success', 'failure', 'throttled'];

/** The portal's own counter: `store_portal_sign_ins_total{method,result}`. */
export interface SignInMetrics {
  signIn(method: SignInMethod, result: SignInResult): void;
}

/** The sign-in counter in `registry`, every series exported from the start (an alert on a rate needs the zero). */
export function createSignInMetrics(registry: Registry): SignInMetrics {
  const signIns = new Counter({
    name: 'store_portal_sign_ins_total',
    help: 'Portal sign-in attempts, by method (password, passkey) and result (success; failure: wrong credentials; throttled: refused before checking).',
    labelNames: ['method', 'result'] as const,
    registers: [registry],
  });
  const series = new Map(SIGN_IN_METHODS.flatMap((method) => SIGN_IN_RESULTS.map((result) => [`${method} ${result}`, signIns.labels({ method, result })] as const)));
  for (const counter of series.values()) counter.inc(0);
  return {
    signIn(method, result) {
      series.get(`${method} ${result}`)?.inc();
    },
  };
}

/** Nothing counted (METRICS_PORT=off). */
export const UNCOUNTED_SIGN_INS: SignInMetrics = { signIn: () => undefined };
