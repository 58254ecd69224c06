package io.jtrace.agent.backend;

import io.jtrace.ipc.IpcHost;
import io.jtrace.ipc.SocketPaths;
import io.jtrace.service.TracingService;
import io.jtrace.service.port.ConsumerPortService;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consumer port of this JVM's embedded service, on {@code <socket dir>/jvm-<pid>.sock} (mode 0600 in
 * an owner-only directory), so {@code jtrace record --pid} can run a session in this JVM as it would in
 * the daemon. The file goes when the JVM exits normally; one left by a JVM that died is replaced by the
 * next JVM with that pid, and the CLI checks the pid is alive before it trusts one.
 */
public final class ConsumerSocket {
    private static final Logger LOG = LoggerFactory.getLogger(ConsumerSocket.class);

    private ConsumerSocket() {}

    /** Serves the consumer port; on failure logs why and returns null (the agent works on without it). */
    public static IpcHost serve(TracingService service, SocketPaths paths, long pid) {
        Path socket = paths.jvmConsumerSocket(pid);
        try {
            paths.ensurePrivateDirectory();
            IpcHost host = IpcHost.listen(socket, List.of(new ConsumerPortService(service)));
            try {
                Runtime.getRuntime().addShutdownHook(new Thread(host::close, "jtrace-consumer-socket-close"));
            } catch (IllegalStateException shuttingDown) {
                // The JVM began to exit while the agent was still starting: nobody will record it now.
                host.close();
                return null;
            }
            LOG.debug("jtrace: consumer port on {}", socket);
            return host;
        } catch (IOException | RuntimeException e) {
            LOG.warn("jtrace: no consumer socket at {} (jtrace record --pid will not reach this JVM): {}", socket,
                    e.getMessage());
            return null;
        }
    }
}
