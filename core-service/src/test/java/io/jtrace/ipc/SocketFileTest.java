package io.jtrace.ipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The socket file: private, replacing what a dead host left, never taking a live host's place. */
class SocketFileTest {
    @TempDir
    Path directory;

    @Test
    void theSocketFileIsReadableAndWritableByItsOwnerOnly() throws Exception {
        try (IpcHost host = IpcHost.listen(directory.resolve("mode.sock"), List.of(new EchoService()))) {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(host.socketPath())));
        }
    }

    @Test
    void aSocketLeftByADeadHostIsReplaced() throws Exception {
        Path socket = directory.resolve("stale.sock");
        // A bound socket that nobody accepts on any more: what a killed process leaves behind.
        try (ServerSocketChannel dead = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            dead.bind(UnixDomainSocketAddress.of(socket));
        }
        assertTrue(Files.exists(socket));
        try (IpcHost host = IpcHost.listen(socket, List.of(new EchoService()))) {
            try (IpcClient client = IpcClient.connect(host.socketPath(), null)) {
                client.bind(EchoService.NAME).get(10, TimeUnit.SECONDS);
            }
        }
        assertFalse(Files.exists(socket), "the host removes its socket when it closes");
    }

    @Test
    void aSocketALiveHostListensOnIsRefusedAndKept() throws Exception {
        Path socket = directory.resolve("live.sock");
        try (IpcHost live = IpcHost.listen(socket, List.of(new EchoService()))) {
            IOException refused = assertThrows(IOException.class, () -> IpcHost.listen(socket, List.of(new EchoService())));
            assertTrue(refused.getMessage().contains("already in use"), refused.getMessage());
            try (IpcClient client = IpcClient.connect(live.socketPath(), null)) {
                client.bind(EchoService.NAME).get(10, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void aFileThatIsNotASocketIsNotReplaced() throws Exception {
        Path file = Files.writeString(directory.resolve("data.sock"), "precious");
        IOException refused = assertThrows(IOException.class, () -> IpcHost.listen(file, List.of(new EchoService())));
        assertTrue(refused.getMessage().contains("is not a socket"), refused.getMessage());
        assertEquals("precious", Files.readString(file));
    }

    @Test
    void aHostDoesNotRemoveTheSocketOfTheHostThatReplacedIt() throws Exception {
        Path socket = directory.resolve("replaced.sock");
        IpcHost first = IpcHost.listen(socket, List.of(new EchoService()));
        Files.delete(socket); // Someone removed it, and a second host took the path.
        try (IpcHost second = IpcHost.listen(socket, List.of(new EchoService()))) {
            first.close();
            assertTrue(Files.exists(second.socketPath()), "the second host's socket is still there");
            try (IpcClient client = IpcClient.connect(second.socketPath(), null)) {
                client.bind(EchoService.NAME).get(10, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void connectingWhereNoHostListensFailsNamingThePath() {
        Path socket = directory.resolve("nobody.sock");
        IOException failure = assertThrows(IOException.class, () -> IpcClient.connect(socket, null));
        assertTrue(failure.getMessage().contains(socket.toString()), failure.getMessage());
    }
}
