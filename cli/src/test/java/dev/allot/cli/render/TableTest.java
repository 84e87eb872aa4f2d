package dev.allot.cli.render;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class TableTest {

    @Test
    void givenALongLastColumn_whenRendered_thenItWrapsUnderItselfWithinTheWidth_andNumbersAlignRight() {
        Table table = new Table().column("ID").number("GPUS").column("REASON")
                .row("job-1", 16, "waits behind lab/vision ratio 0.42 and lab/nlp ratio 0.50; reservation holds node-2")
                .row("j2", 2, null);

        String text = table.render(50);

        List<String> lines = text.lines().toList();
        assertThat(lines).allMatch(l -> l.length() <= 50);
        assertThat(lines.get(0)).isEqualTo("ID     GPUS  REASON");
        assertThat(lines.get(1)).startsWith("job-1    16  waits behind");
        assertThat(lines.get(2)).startsWith("             ");
        assertThat(lines.get(lines.size() - 1)).isEqualTo("j2        2  -");
        String reason = String.join(" ", lines.subList(1, lines.size() - 1).stream().map(l -> l.substring(13)).toList());
        assertThat(reason).isEqualTo("waits behind lab/vision ratio 0.42 and lab/nlp ratio 0.50; reservation holds node-2");
    }
}
