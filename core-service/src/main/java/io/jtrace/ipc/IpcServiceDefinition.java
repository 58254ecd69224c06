package io.jtrace.ipc;

import java.util.List;

/** A service an {@link IpcHost} offers: its name, its methods, and a binding per connection that binds it. */
public interface IpcServiceDefinition {
    /** What clients bind, e.g. {@code ProducerPort}. */
    String name();

    /** The method names; on the wire, method ids are their positions in this list plus one. */
    List<String> methods();

    /**
     * A client bound the service on {@code connection}. Called on the host's I/O thread; must not block.
     * Binding the same service twice on one connection returns the first binding again.
     */
    ServiceBinding bind(IpcConnection connection);
}
