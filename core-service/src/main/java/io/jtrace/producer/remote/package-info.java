/**
 * A producer's connection to a tracing service in another process (the daemon) over the producer
 * port: {@link io.jtrace.producer.remote.IpcProducerEndpoint} is the {@code ProducerEndpoint} a
 * {@code ProducerClient} talks to, and it turns the service's streamed commands into calls on the
 * producer.
 */
package io.jtrace.producer.remote;
