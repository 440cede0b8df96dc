import { visibilitySuite } from "./visibility.suite";

visibilitySuite("sqlite");
