package io.jtrace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

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
}
