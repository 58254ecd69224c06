package io.jtrace.jfr.file;

import java.util.Map;

/**
 * What a conversion did: events written per type, events that could not be written, and what of the
 * input was lost ({@code loss} null when nothing was).
 */
public record ConversionReport(Map<String, Long> eventsPerType, long eventsWritten, long eventsSkipped,
        int chunksRead, long bytesRead, long inputBytes, String loss, long packetsWritten, long traceBytes) {

    public boolean lostSomething() {
        return loss != null || eventsSkipped > 0;
    }
}
