package io.jtrace.agent.tracks;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * What the agent's logger (SLF4J simple, which looks up {@code System.err} at every write) writes while
 * this is open. Tests run one at a time in the module's JVM, so nothing else writes meanwhile.
 */
public final class CapturedStderr implements AutoCloseable {
    private final PrintStream original = System.err;
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    public CapturedStderr() {
        System.setErr(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    }

    /** The lines written so far. */
    public List<String> lines() {
        System.err.flush();
        String text = bytes.toString(StandardCharsets.UTF_8);
        return text.isEmpty() ? List.of() : Arrays.asList(text.split("\\R"));
    }

    /** How many lines written so far contain {@code text}. */
    public long linesContaining(String text) {
        return lines().stream().filter(l -> l.contains(text)).count();
    }

    @Override
    public void close() {
        System.setErr(original);
    }
}
