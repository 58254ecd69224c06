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

/**
 * {@code jtrace merge} and {@code jtrace convert} as a user runs them: what they say on stderr, and their
 * exit code, when an input is missing.
 */
class MissingInputTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int merge(Path trace, Path jfr, Path output) {
        return JfrCommands.merge(new String[] {trace.toString(), jfr.toString(), "-o", output.toString()},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void aMissingInputIsNamedAsNoSuchFileNotAsAPathThatCannotBeMade() throws Exception {
        Path missingTrace = dir.resolve("no-such.pftrace");
        Path recording = Files.writeString(dir.resolve("rec.jfr"), "not read");
        Path output = dir.resolve("merged.pftrace");
        assertEquals(JfrCommands.FAILED, merge(missingTrace, recording, output));
        assertEquals("jtrace: " + missingTrace + ": no such file" + System.lineSeparator(),
                err.toString(StandardCharsets.UTF_8));

        err.reset();
        Path trace = Files.writeString(dir.resolve("trace.pftrace"), "not read");
        Path missingRecording = dir.resolve("no-such.jfr");
        assertEquals(JfrCommands.FAILED, merge(trace, missingRecording, output));
        assertEquals("jtrace: " + missingRecording + ": no such file" + System.lineSeparator(),
                err.toString(StandardCharsets.UTF_8));
        assertFalse(Files.exists(output));
        assertEquals("", out.toString(StandardCharsets.UTF_8));
    }

    /** Whether or not the output exists already (convert checks that first), a missing recording is no such file. */
    @Test
    void convertSaysAMissingRecordingIsNoSuchFileWhetherOrNotTheOutputExists() throws Exception {
        Path missingRecording = dir.resolve("no-such.jfr");
        Path output = dir.resolve("converted.pftrace");
        PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        assertEquals(JfrCommands.FAILED, JfrCommands.convert(new String[] {missingRecording.toString(), "-o", output.toString()}, o, e));
        String withoutOutput = err.toString(StandardCharsets.UTF_8);
        err.reset();
        Files.writeString(output, "an earlier trace");
        assertEquals(JfrCommands.FAILED, JfrCommands.convert(new String[] {missingRecording.toString(), "-o", output.toString()}, o, e));
        assertEquals("jtrace: " + missingRecording + ": no such file" + System.lineSeparator(), withoutOutput);
        assertEquals(withoutOutput, err.toString(StandardCharsets.UTF_8));
    }
}
