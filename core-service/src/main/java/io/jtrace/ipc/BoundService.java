package io.jtrace.ipc;

import com.google.protobuf.MessageLite;
import java.util.Map;
import java.util.TreeSet;

/** A service bound on an {@link IpcClient}'s connection: method names mapped to the host's ids. Immutable. */
final class BoundService implements ServiceProxy {
    private final IpcClient client;
    private final String name;
    private final int serviceId;
    private final Map<String, Integer> methodIds;

    BoundService(IpcClient client, String name, int serviceId, Map<String, Integer> methodIds) {
        this.client = client;
        this.name = name;
        this.serviceId = serviceId;
        this.methodIds = Map.copyOf(methodIds);
    }

    @Override
    public void invoke(String method, MessageLite args, ReplyHandler handler) {
        Integer methodId = methodIds.get(method);
        if (methodId == null) {
            String failure = "service " + name + " has no method " + method + " (it has " + new TreeSet<>(methodIds.keySet()) + ")";
            if (handler == null) {
                throw new IllegalArgumentException(failure);
            }
            handler.onFailure(failure);
            return;
        }
        client.invoke(serviceId, methodId, name + "." + method, args, handler);
    }
}
