package io.jtrace.jfr.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.jtrace.jfr.cli.JfrCommands;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code jtrace merge} as a user runs it: what it says on stderr and its exit code when an input is missing. */
class MergeCommandTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int merge(Path trace, Path jfr, Path output) {
        return JfrCommands.merge(new String[] {trace.toString(), jfr.toString(), "-o", output.toString()},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void aMissingInputIsSaidNotToExistNamingItNotThatItCannotBeMade() throws Exception {
        Path missingTrace = dir.resolve("no-such.pftrace");
        Path recording = Files.writeString(dir.resolve("rec.jfr"), "not read");
        Path output = dir.resolve("merged.pftrace");
        assertEquals(JfrCommands.FAILED, merge(missingTrace, recording, output));
        assertEquals("jtrace: input file " + missingTrace + " does not exist" + System.lineSeparator(),
                err.toString(StandardCharsets.UTF_8));

        err.reset();
        Path trace = Files.writeString(dir.resolve("trace.pftrace"), "not read");
        Path missingRecording = dir.resolve("no-such.jfr");
        assertEquals(JfrCommands.FAILED, merge(trace, missingRecording, output));
        assertEquals("jtrace: input file " + missingRecording + " does not exist" + System.lineSeparator(),
                err.toString(StandardCharsets.UTF_8));
        assertFalse(Files.exists(output));
        assertEquals("", out.toString(StandardCharsets.UTF_8));
    }
}
