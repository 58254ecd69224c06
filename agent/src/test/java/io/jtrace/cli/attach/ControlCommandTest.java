package io.jtrace.cli.attach;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Command lines refused before any JVM is touched: one line naming the mistake, exit code 2. */
class ControlCommandTest {
    private static String refused(String... args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(ExitCodes.USAGE, ControlCommand.run(args, new PrintStream(out), new PrintStream(err)));
        assertEquals("", out.toString(StandardCharsets.UTF_8));
        return err.toString(StandardCharsets.UTF_8).strip();
    }

    @Test
    void mistakesAreNamedOnOneLine() {
        assertEquals("jtrace status: which JVM? give --pid <pid> (jtrace list shows them)", refused("status"));
        assertEquals("jtrace stop: --pid needs a process id, got 'x'", refused("stop", "--pid", "x"));
        assertEquals("jtrace stop: --pid needs a process id, got '0'", refused("stop", "--pid", "0"));
        assertEquals("jtrace stop: --pid needs a value", refused("stop", "--pid"));
        assertEquals("jtrace dump: dump needs --out <file>", refused("dump", "--pid", "1"));
        assertEquals("jtrace flush: unknown option '--force'", refused("flush", "--pid", "1", "--force"));
        assertEquals("jtrace stop: unexpected arguments [now]", refused("stop", "--pid", "1", "now"));
        assertEquals("jtrace start: give either --config or options, not both",
                refused("start", "--pid", "1", "--config", "c.pbtxt", "duration=1s"));
        assertEquals("jtrace start: give the options as one comma-separated argument, got [ring, duration=1s]",
                refused("start", "--pid", "1", "ring", "duration=1s"));
        assertEquals("jtrace status: status shows every session; it takes no --name",
                refused("status", "--pid", "1", "--name", "x"));
    }

    @Test
    void aConfigFileThatCannotBeReadFailsBeforeAnyJvmIsTouched() {
        // Pid 1 is never a JVM of ours: had the command attached first, it would have failed with 3.
        String message = refused("start", "--pid", "1", "--config", "/no/such/config.pbtxt");
        assertTrue(message.startsWith("jtrace start: --config: cannot read '/no/such/config.pbtxt': "), message);
    }

    /**
     * A config that does not parse is refused here, naming its file, before any JVM is touched: exit
     * code 1, as when the agent refuses it (pid 1 is never a JVM of ours: an attach would have given 3).
     */
    @Test
    void aConfigFileThatDoesNotParseIsRefusedNamingTheFile(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws java.io.IOException {
        java.nio.file.Path config = java.nio.file.Files.writeString(dir.resolve("syntax.pbtxt"),
                "buffers { size_kb: 1024\n data_sources { garbage");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(ExitCodes.COMMAND_FAILED, ControlCommand.run(new String[] {"start", "--pid", "1", "--config",
                config.toString()}, new PrintStream(new ByteArrayOutputStream()), new PrintStream(err)));
        String message = err.toString(StandardCharsets.UTF_8).strip();
        assertTrue(message.startsWith("jtrace start: --config " + config + ": trace config line 2, column "), message);
    }
}
