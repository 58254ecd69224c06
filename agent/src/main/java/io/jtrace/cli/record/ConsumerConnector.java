package io.jtrace.cli.record;

import io.jtrace.consumer.TracingConsumer;
import java.io.IOException;
import java.nio.file.Path;

/** Opens a consumer connection to the tracing service listening on a socket (the daemon's or a JVM's). */
@FunctionalInterface
public interface ConsumerConnector {
    /** Throws {@link IOException} when nothing answers on {@code socket}. */
    TracingConsumer connect(Path socket) throws IOException;
}
