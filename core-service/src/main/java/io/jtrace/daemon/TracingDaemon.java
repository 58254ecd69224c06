package io.jtrace.daemon;

import io.jtrace.ipc.IpcHost;
import io.jtrace.service.ServiceConfig;
import io.jtrace.service.TracingService;
import io.jtrace.service.port.ConsumerPortService;
import io.jtrace.service.port.ProducerPortService;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code jtrace daemon}: a tracing service serving producers (JVMs whose agent finds the producer
 * socket) on one socket and consumers ({@code jtrace record}, or any client of Perfetto's consumer
 * port) on another, so one session can span many JVMs.
 */
public final class TracingDaemon implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TracingDaemon.class);

    private final TracingService service;
    private final IpcHost producers;
    private final IpcHost consumers;

    private TracingDaemon(TracingService service, IpcHost producers, IpcHost consumers) {
        this.service = service;
        this.producers = producers;
        this.consumers = consumers;
    }

    /**
     * Starts the service and listens on both sockets (their directories must exist and be private:
     * see {@link io.jtrace.ipc.SocketPaths#ensurePrivateDirectory()}). Fails without leaving anything
     * running when a socket cannot be served (e.g. another daemon has it).
     */
    public static TracingDaemon start(ServiceConfig config, Path producerSocket, Path consumerSocket) throws IOException {
        TracingService service = new TracingService(config);
        IpcHost producers = null;
        try {
            producers = IpcHost.listen(producerSocket, List.of(new ProducerPortService(service)));
            IpcHost consumers = IpcHost.listen(consumerSocket, List.of(new ConsumerPortService(service)));
            LOG.debug("jtrace daemon: producers on {}, consumers on {}", producerSocket, consumerSocket);
            return new TracingDaemon(service, producers, consumers);
        } catch (IOException | RuntimeException e) {
            if (producers != null) {
                producers.close();
            }
            service.close();
            throw e;
        }
    }

    public TracingService service() {
        return service;
    }

    /** Stops listening (both socket files go), ends every session and drops every producer. */
    @Override
    public void close() {
        consumers.close();
        producers.close();
        service.close();
    }
}
