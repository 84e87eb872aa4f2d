package dev.allot.cli.render;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class WordsTest {

    @Test
    void givenASentence_whenWrapped_thenNoLineIsWiderAndNoWordIsCut() {
        Random random = new Random(15);
        for (int round = 0; round < 500; round++) {
            StringBuilder text = new StringBuilder();
            int words = 1 + random.nextInt(30);
            for (int i = 0; i < words; i++) {
                text.append(i == 0 ? "" : " ").append("w".repeat(1 + random.nextInt(9)));
            }
            int width = 10 + random.nextInt(40);

            List<String> lines = Words.wrap(text.toString(), width);

            assertThat(lines).allMatch(l -> l.length() <= width);
            assertThat(String.join(" ", lines)).isEqualTo(text.toString());
        }
    }

    @Test
    void givenATooLongSentence_whenFitted_thenItEndsAfterAWholeWordWithAnEllipsis() {
        String reason = "waits for 16 GPUs: reservation for job-7 holds node-2";

        String fitted = Words.fit(reason, 30);

        assertThat(fitted).isEqualTo("waits for 16 GPUs…");
        assertThat(fitted.length()).isLessThanOrEqualTo(30);
        assertThat(Words.fit(reason, 200)).isEqualTo(reason);
        assertThat(Words.fit("a-single-very-long-identifier", 10)).isEqualTo("a-single-…");
    }
}
