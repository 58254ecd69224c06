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
}
