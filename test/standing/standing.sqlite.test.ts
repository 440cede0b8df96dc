import { standingSuite } from "./standing.suite";

standingSuite("sqlite");
