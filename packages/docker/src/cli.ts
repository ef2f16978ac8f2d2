// TODO(image owner): CLI
