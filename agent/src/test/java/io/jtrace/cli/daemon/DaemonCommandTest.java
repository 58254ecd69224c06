package io.jtrace.cli.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.daemon.TracingDaemon;
import io.jtrace.service.ServiceConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DaemonCommandTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return DaemonCommand.run(args, new PrintStream(out), new PrintStream(err));
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void anUnknownOptionIsAUsageErrorNamingIt() {
        assertEquals(2, run("daemon", "--sockets", "/tmp/x"));
        assertTrue(err().startsWith("jtrace daemon: unknown option '--sockets'"), err());
        assertEquals("", out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aLimitThatIsNoPositiveNumberIsAUsageErrorNamingTheOption() {
        assertEquals(2, run("daemon", "--max-sessions-per-uid", "0"));
        assertTrue(err().startsWith("jtrace daemon: --max-sessions-per-uid needs a positive number, got '0'"), err());
        assertEquals(2, run("daemon", "--max-sessions"));
        assertTrue(err().contains("--max-sessions needs a value"), err());
    }

    @Test
    void socketsAnotherDaemonServesAreRefusedInOneLine(@TempDir Path dir) throws Exception {
        try (TracingDaemon running = TracingDaemon.start(ServiceConfig.defaults(), dir.resolve("p.sock"),
                dir.resolve("c.sock"))) {
            assertEquals(1, run("daemon", "--producer-socket", dir.resolve("p.sock").toString(), "--consumer-socket",
                    dir.resolve("c2.sock").toString()));
            assertTrue(err().startsWith("jtrace daemon: ") && err().contains("in use"), err());
            assertEquals(1, err().lines().count(), err());
        }
    }
}
