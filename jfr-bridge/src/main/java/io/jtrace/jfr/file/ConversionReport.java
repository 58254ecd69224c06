package io.jtrace.jfr.file;

import java.util.List;
import java.util.Map;

/**
 * What a conversion did: events written per type, events that could not be written, and what of the
 * input was lost ({@code loss} null when nothing was). {@code failedPerType}: events jtrace's mapping
 * threw on (a bug of jtrace, skipped with {@code --keep-going}), {@code firstFailure} describing the
 * first (null when none). {@code notes}: what the user should know about the output (a guessed pid).
 */
public record ConversionReport(Map<String, Long> eventsPerType, long eventsWritten, long eventsSkipped,
        int chunksRead, long bytesRead, long inputBytes, String loss, long packetsWritten, long traceBytes,
        Map<String, Long> failedPerType, String firstFailure, List<String> notes) {

    public long eventsFailed() {
        return failedPerType.values().stream().mapToLong(Long::longValue).sum();
    }

    public boolean lostSomething() {
        return loss != null || eventsSkipped > 0 || eventsFailed() > 0;
    }
}
