package io.jtrace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MainTest {
    @Test
    void helpPrintsUsageAndSucceeds() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(0, Main.run(new String[] {"--help"}, new PrintStream(out), System.err));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("-javaagent:jtrace.jar=start"));
    }

    @Test
    void unknownCommandFailsWithExitCode2AndNamesIt() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(2, Main.run(new String[] {"frob"}, System.out, new PrintStream(err)));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("unknown command 'frob'"));
    }

    @Test
    void convertWithoutOutputFailsWithExitCode2AndUsage() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(2, Main.run(new String[] {"convert", "rec.jfr"}, System.out, new PrintStream(err)));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("java -jar jtrace.jar convert rec.jfr -o out.pftrace"));
    }

    @Test
    void convertOfAMissingRecordingFailsWithExitCode1NamingIt() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(1, Main.run(new String[] {"convert", "no-such.jfr", "-o", "out.pftrace"}, System.out, new PrintStream(err)));
        assertEquals("jtrace: no-such.jfr: no such file" + System.lineSeparator(), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void mergeDispatchesToItsCommand() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(2, Main.run(new String[] {"merge", "a.pftrace", "-o", "m.pftrace"}, System.out, new PrintStream(err)));
        assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("jtrace merge: expected a trace and a recording"));
    }

    @Test
    void everyCommandAnswersHelpWithItsUsageAndDoesNothingElse() {
        for (String command : List.of("record", "summary", "daemon", "start", "stop", "flush", "dump", "status", "list",
                "convert", "merge")) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            // A pid that is no process: anything but the help would fail on it.
            assertEquals(0, Main.run(new String[] {command, "--pid", "999999999", "--help"}, new PrintStream(out),
                    new PrintStream(err), socket -> { throw new AssertionError("no connection for --help"); }), command);
            assertEquals(Main.commandHelp(command), out.toString(StandardCharsets.UTF_8), command);
            assertEquals("", err.toString(StandardCharsets.UTF_8), command);
        }
    }

    @Test
    void usageListsRecordAndSummary() {
        assertTrue(Main.usage().contains("jtrace record --pid <pid> --time 30s -o trace.pftrace"));
        assertTrue(Main.usage().contains("jtrace summary trace.pftrace [--json]"));
    }

    @Test
    void recordToASocketNobodyServesSaysSoInOneLineAndExitsNotReachable(@TempDir Path dir) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Path socket = dir.resolve("jvm.sock");
        assertEquals(3, Main.run(new String[] {"record", "--socket", socket.toString(), "--time", "1s", "-o",
                dir.resolve("x.pftrace").toString()}, System.out, new PrintStream(err)));
        String said = err.toString(StandardCharsets.UTF_8);
        assertTrue(said.startsWith("jtrace record: ") && said.contains(socket.toString()), said);
        assertEquals(1, said.lines().count(), said);
    }
}
