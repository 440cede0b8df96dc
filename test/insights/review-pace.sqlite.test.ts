import { reviewPaceSuite } from "./review-pace.suite";

reviewPaceSuite("sqlite");
