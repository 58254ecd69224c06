package io.jtrace.service.port;

import io.jtrace.ipc.IpcConnection;
import io.jtrace.ipc.IpcServiceDefinition;
import io.jtrace.ipc.ServiceBinding;
import io.jtrace.ports.PortNames;
import io.jtrace.service.TracingService;
import java.util.List;

/**
 * {@code ConsumerPort}: every connection that binds it is one consumer of {@code service}, with at most
 * one session, which it alone can read, flush, stop or free (another connection has no way to name
 * it); closing the connection frees it.
 */
public final class ConsumerPortService implements IpcServiceDefinition {
    private static final List<String> METHODS = PortNames.consumerMethods();
    private final TracingService service;

    public ConsumerPortService(TracingService service) {
        this.service = service;
    }

    @Override
    public String name() {
        return PortNames.CONSUMER_PORT;
    }

    @Override
    public List<String> methods() {
        return METHODS;
    }

    @Override
    public ServiceBinding bind(IpcConnection connection) {
        return new ConsumerPortBinding(service, connection);
    }
}
