// The widget's failures: the one error class every client of the service shares (contract/answer.ts).
export { ServiceError, type ServiceErrorKind } from '../../contract/answer.ts';

export const isAbort = (error: unknown): boolean => (error as Error | undefined)?.name === 'AbortError';
