package io.jtrace.jfr.file;

import io.jtrace.jfr.format.JfrEventMapper;
import jdk.jfr.consumer.RecordedEvent;

/**
 * How a conversion maps one parsed event: {@link JfrEventMapper#write}. A seam for tests, which put a
 * mapper that fails in its place to check that a failure of jtrace's mapping is told apart from damage.
 */
@FunctionalInterface
interface EventMapping {
    EventMapping MAPPER = JfrEventMapper::write;

    void write(JfrEventMapper mapper, RecordedEvent event);
}
