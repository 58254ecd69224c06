package io.jtrace.ports;

import com.google.protobuf.Descriptors.MethodDescriptor;
import com.google.protobuf.Descriptors.ServiceDescriptor;
import io.jtrace.protos.ConsumerPortProtos;
import io.jtrace.protos.ProducerPortProtos;
import java.util.List;

/** The two services jtrace's IPC carries, with their methods in the order the protos declare them. */
public final class PortNames {
    public static final String PRODUCER_PORT = "ProducerPort";
    public static final String CONSUMER_PORT = "ConsumerPort";

    private PortNames() {}

    public static List<String> producerMethods() {
        return methodsOf(ProducerPortProtos.getDescriptor().findServiceByName(PRODUCER_PORT));
    }

    public static List<String> consumerMethods() {
        return methodsOf(ConsumerPortProtos.getDescriptor().findServiceByName(CONSUMER_PORT));
    }

    private static List<String> methodsOf(ServiceDescriptor service) {
        return service.getMethods().stream().map(MethodDescriptor::getName).toList();
    }
}
