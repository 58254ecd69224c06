package io.jtrace.ipc;

import io.jtrace.protos.IPCFrame;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;

/**
 * The services a host offers, fixed when the host starts. Service ids are host-wide, as in Perfetto: a
 * service's position in the list plus one; method ids are a method's position plus one. Immutable, so
 * any thread may read it.
 */
final class ServiceTable {
    private final IpcServiceDefinition[] definitions;
    private final String[][] methods;
    private final IPCFrame.BindServiceReply[] bindReplies;
    private final Map<String, Integer> idsByName = new HashMap<>();

    ServiceTable(List<IpcServiceDefinition> services) {
        int count = services.size();
        definitions = new IpcServiceDefinition[count];
        methods = new String[count][];
        bindReplies = new IPCFrame.BindServiceReply[count];
        for (int i = 0; i < count; i++) {
            IpcServiceDefinition definition = services.get(i);
            int id = i + 1;
            if (idsByName.putIfAbsent(definition.name(), id) != null) {
                throw new IllegalArgumentException("two services are named " + definition.name());
            }
            List<String> names = List.copyOf(definition.methods());
            if (new HashSet<>(names).size() != names.size()) {
                throw new IllegalArgumentException("service " + definition.name() + " names a method twice: " + names);
            }
            definitions[i] = definition;
            methods[i] = names.toArray(new String[0]);
            IPCFrame.BindServiceReply.Builder reply = IPCFrame.BindServiceReply.newBuilder().setSuccess(true).setServiceId(id);
            for (int m = 0; m < names.size(); m++) {
                reply.addMethods(IPCFrame.BindServiceReply.MethodInfo.newBuilder().setId(m + 1).setName(names.get(m)));
            }
            bindReplies[i] = reply.build();
        }
    }

    int size() {
        return definitions.length;
    }

    /** The id of the service named {@code name}, or 0 when there is none. */
    int idOf(String name) {
        return idsByName.getOrDefault(name, 0);
    }

    /** Valid ids are 1..{@link #size()}; {@code id} is the wire's uint32 as an int. */
    boolean isValid(int id) {
        return id >= 1 && id <= definitions.length;
    }

    IpcServiceDefinition definition(int id) {
        return definitions[id - 1];
    }

    /** The successful bind reply of service {@code id}: its id and its methods' ids and names. */
    IPCFrame.BindServiceReply bindReply(int id) {
        return bindReplies[id - 1];
    }

    /** The method {@code methodId} (uint32 as an int) of the valid service {@code id}, or null. */
    String method(int id, int methodId) {
        String[] names = methods[id - 1];
        return methodId >= 1 && methodId <= names.length ? names[methodId - 1] : null;
    }
}
