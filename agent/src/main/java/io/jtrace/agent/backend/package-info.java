/**
 * How the agent's tracing reaches beyond its JVM (DESIGN §3): the consumer socket its embedded service
 * serves ({@link io.jtrace.agent.backend.ConsumerSocket}, for {@code jtrace record --pid}) and the
 * system backend, a producer connection to a {@code jtrace daemon} that comes and goes with the daemon
 * ({@link io.jtrace.agent.backend.SystemBackend}).
 */
package io.jtrace.agent.backend;
