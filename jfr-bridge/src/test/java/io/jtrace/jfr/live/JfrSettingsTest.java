package io.jtrace.jfr.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class JfrSettingsTest {
    @Test
    void emptyConfigMeansJfrsDefaultConfiguration() {
        assertEquals("default", JfrSettings.parse("").configuration());
        assertEquals("default", JfrSettings.parse(null).configuration());
    }

    @Test
    void predefinedConfigurationEnablesWhatItEnables() {
        JfrSettings profile = JfrSettings.parse("profile");
        assertEquals("profile", profile.configuration());
        assertTrue(profile.enabledEvents().containsAll(Set.of("jdk.ExecutionSample", "jdk.ThreadPark", "jdk.CPULoad")));
    }

    /** A misspelt event name, which JFR ignores silently, is found among the registered event types' names. */
    @Test
    void listedEventsNoRegisteredTypeHasAreNamed() {
        JfrSettings settings = JfrSettings.parse("jdk.GarbageCollection#enabled=true+jdk.NoSuchEvent#foo=bar");
        assertEquals(java.util.List.of("jdk.NoSuchEvent"), settings.eventsNotAmong(
                jdk.jfr.FlightRecorder.getFlightRecorder().getEventTypes().stream().map(jdk.jfr.EventType::getName)
                        .collect(java.util.stream.Collectors.toSet())));
        assertEquals(java.util.List.of(), JfrSettings.parse("default").eventsNotAmong(Set.of()));
    }

    @Test
    void unknownPredefinedConfigurationIsRejectedByName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> JfrSettings.parse("fast"));
        assertTrue(e.getMessage().contains("no predefined JFR configuration 'fast'"), e.getMessage());
    }

    @Test
    void listedEventsCarryTheirSettingsAndDisabledOnesAreNotEnabled() {
        JfrSettings s = JfrSettings.parse("jdk.ThreadPark#threshold=1 ms+jdk.ExecutionSample#period=10 ms+my.App+jdk.ThreadSleep#enabled=false");
        assertNull(s.configuration());
        assertEquals(Map.of("threshold", "1 ms"), s.events().get("jdk.ThreadPark"));
        assertEquals(Map.of(), s.events().get("my.App"));
        assertEquals(Set.of("jdk.ThreadPark", "jdk.ExecutionSample", "my.App"), s.enabledEvents());
        assertFalse(s.enabledEvents().contains("jdk.ThreadSleep"));
    }

    @Test
    void settingWithoutValueIsRejectedNamingIt() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> JfrSettings.parse("jdk.ThreadPark#threshold"));
        assertEquals("jvm.jfr: setting 'threshold' of jdk.ThreadPark is not setting=value", e.getMessage());
    }
}
