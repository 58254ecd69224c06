package io.jtrace.producer.tracks;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ProcessTrackTest {
    @Test
    void aProcessIsNamedAfterItsMainClassOrJar() {
        assertEquals("com.example.App", ProcessTrack.mainOf("com.example.App --port 8080"));
        assertEquals("/opt/app/service.jar", ProcessTrack.mainOf("/opt/app/service.jar"));
    }

    @Test
    void aSourceFileLaunchIsNamedAfterTheSourceFileNotTheLauncher() {
        assertEquals("App.java", ProcessTrack.mainOf("jdk.compiler/com.sun.tools.javac.launcher.Main App.java 4 2"));
        assertEquals("src/Tool.java", ProcessTrack.mainOf("jdk.compiler/com.sun.tools.javac.launcher.SourceLauncher src/Tool.java"));
    }
}
