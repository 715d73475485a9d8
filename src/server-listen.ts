import type { FastifyInstance } from 'fastify';

/** Why a host could not listen, named by the variable that chose its port (PORT, QUICKSTART_PORT). */
class PortUnavailableError extends Error {
  constructor(variable: string, host: string, port: number, cause: NodeJS.ErrnoException) {
    const why = cause.code === 'EADDRINUSE' ? 'is already in use' : 'may not be listened on by this user';
    super(`${variable}=${port}: ${host}:${port} ${why}; choose another ${variable} (each process needs its own PORT and QUICKSTART_PORT, or QUICKSTART_PORT=off)`, {
      cause,
    });
    this.name = 'PortUnavailableError';
  }
}

/**
 * Listens on host:port; a port that is taken (or privileged) is reported
 * with the variable that chose it, so that an operator running several
 * processes knows which setting to change.
 */
export async function listenOn(app: FastifyInstance, host: string, port: number, variable: string): Promise<string> {
  try {
    return await app.listen({ host, port });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES') throw new PortUnavailableError(variable, host, port, error as NodeJS.ErrnoException);
    throw error;
  }
}
