package io.jtrace.agent.backend;

import io.jtrace.ipc.SocketPaths;
import java.nio.file.Path;

/**
 * Which {@code jtrace daemon} the agent joins as a producer (option {@code socket=}): the one at the
 * default producer socket, the one at a given path, or none.
 *
 * @param path the producer socket, or null for none
 */
public record DaemonSocket(Path path) {
    public static final DaemonSocket DEFAULT = new DaemonSocket(SocketPaths.defaults().producerSocket());
    public static final DaemonSocket NONE = new DaemonSocket(null);

    public static DaemonSocket parse(String value) {
        return value.equals("off") ? NONE : new DaemonSocket(Path.of(value));
    }
}
