/**
 * The tracing service's two IPC ports (DESIGN §3, §9): {@link io.jtrace.service.port.ProducerPortService}
 * for producers in other processes and {@link io.jtrace.service.port.ConsumerPortService} for consumers
 * (the CLI, or any client of Perfetto's consumer port). Each binding turns one connection's calls into
 * calls on the service's endpoints; the service itself does not know a transport is there.
 */
package io.jtrace.service.port;
