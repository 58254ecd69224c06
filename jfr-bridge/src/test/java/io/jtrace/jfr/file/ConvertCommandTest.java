package io.jtrace.jfr.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.jfr.cli.JfrCommands;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code jtrace convert} as a user runs it: what it says on stderr and its exit code. */
class ConvertCommandTest {
    @TempDir
    Path dir;

    @Test
    void aRecordingThatDoesNotTellItsPidConvertsAndSaysSoOnceOnStderr() throws Exception {
        Path recording = TestRecordings.record(dir.resolve("anonymous.jfr"), 1, 5, r -> { });
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = JfrCommands.convert(new String[] {recording.toString(), "-o", dir.resolve("a.pftrace").toString()},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(JfrCommands.OK, exit, err.toString(StandardCharsets.UTF_8));
        List<String> lines = err.toString(StandardCharsets.UTF_8).lines().toList();
        assertEquals(1, lines.size(), lines.toString());
        assertTrue(lines.get(0).startsWith("jtrace: " + recording + ": the recording does not tell its JVM's pid"), lines.get(0));
        assertTrue(lines.get(0).contains("named 'anonymous.jfr' with pid 4194304"), lines.get(0));
    }
}
