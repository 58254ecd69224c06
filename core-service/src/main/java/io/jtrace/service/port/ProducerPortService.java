package io.jtrace.service.port;

import io.jtrace.ipc.IpcConnection;
import io.jtrace.ipc.IpcServiceDefinition;
import io.jtrace.ipc.ServiceBinding;
import io.jtrace.ports.PortNames;
import io.jtrace.service.TracingService;
import java.util.List;

/** {@code ProducerPort}: every connection that binds it may become one producer of {@code service}. */
public final class ProducerPortService implements IpcServiceDefinition {
    private static final List<String> METHODS = PortNames.producerMethods();
    private final TracingService service;

    public ProducerPortService(TracingService service) {
        this.service = service;
    }

    @Override
    public String name() {
        return PortNames.PRODUCER_PORT;
    }

    @Override
    public List<String> methods() {
        return METHODS;
    }

    @Override
    public ServiceBinding bind(IpcConnection connection) {
        return new ProducerPortBinding(service, connection);
    }
}
